// SPDX-License-Identifier: MIT
/*
 * cmd_validate.c - `prism validate [CSV] [--framework NAME|FILE] [--json]`: predicted
 * versus measured memory, step time, TFLOP/s and MFU for published runs (default:
 * cost/validation/measured.csv of the source tree). search/analysis/validate.c (validate.h) does
 * the work and returns data; this file renders it as text or JSON. Collective like every command
 * (planned rows run the search on every rank); rank 0 prints.
 */
#include "app-internal.h"

#include <math.h>
#include <string.h>

#include <prism/fwconfig.h>
#include <prism/validate.h>

#ifndef PRISM_SOURCE_DIR
#define PRISM_SOURCE_DIR "."
#endif

/* Metric @p k of row @p r as text: predicted and measured ("-" when none) and the error
 * ("" when none), absolute or, with @p sign, signed (+ = predicted higher). */
typedef struct {
    char pred[32], meas[32], err[32];
} Cell;

static Cell cell_text(const PrismValidateRow *r, int k, gboolean sign)
{
    Cell c = {"-", "-", ""};
    if (!isnan(r->pred[k]))
        g_snprintf(c.pred, sizeof c.pred, "%.4g", r->pred[k]);
    if (!isnan(r->meas[k]))
        g_snprintf(c.meas, sizeof c.meas, "%.4g", r->meas[k]);
    if (!isnan(r->err[k]))
        g_snprintf(c.err, sizeof c.err, sign ? "%+.1f%%" : "%.1f%%",
                   sign ? 100.0 * (r->pred[k] - r->meas[k]) / r->meas[k] : r->err[k]);
    return c;
}

static void cell(GString *o, const PrismValidateRow *r, int k)
{
    const Cell c = cell_text(r, k, FALSE);
    g_string_append_printf(o, " %8s %8s %6s", c.pred, c.meas, c.err);
}

/* Per source and metric: mean / worst absolute percentage error (rows), or with @p bias
 * the signed mean of (predicted - measured) / measured, the way the source misses. */
static void summary(GString *o, const PrismValidateReport *rep, PrismValidateKind kind,
                    const int *metrics, int n, gboolean bias)
{
    static const char *const names[] = {"peak memory", "step time", "TFLOP/s per GPU", "MFU"};
    if (bias)
        g_string_append(o, "\nsigned mean error per source ((predicted - measured) / measured; "
                           "+ = predicted higher)\n");
    g_string_append_printf(o, "%-22s", "source");
    for (int k = 0; k < n; k++)
        g_string_append_printf(o, " %-20s", names[metrics[k]]);
    g_string_append_c(o, '\n');
    for (guint i = 0; i < rep->stats->len; i++) {
        const PrismValidateStat *st = g_ptr_array_index(rep->stats, i);
        if (st->kind != kind)
            continue;
        g_string_append_printf(o, "%-22s", st->source);
        for (int j = 0; j < n; j++) {
            const int k = metrics[j];
            g_autofree char *c =
                st->n[k] == 0 ? g_strdup("-")
                : bias        ? g_strdup_printf("%+.1f%%", st->signed_sum[k] / st->n[k])
                              : g_strdup_printf("%.1f%% / %.1f%% (%d)", st->sum[k] / st->n[k],
                                                st->worst[k], st->n[k]);
            g_string_append_printf(o, " %-20s", c);
        }
        g_string_append_c(o, '\n');
    }
}

/* "93 % (13/14)", "-" when @p n is 0. */
static char *inside_text(int in, int n)
{
    return n == 0 ? g_strdup("-") : g_strdup_printf("%.0f%% (%d/%d)", 100.0 * in / n, in, n);
}

/* Per source: the share of measured step times inside their intervals (the knob ranges'
 * corners alone, ranges.h) and the intervals' mean width, predicted and planned rows; then
 * the same for the interval plan would show with the row's source left out of the track
 * record (prism_track_holdout), and how many of those rows no other source widens. */
static void coverage(GString *o, const PrismValidateReport *rep)
{
    int n = 0, in = 0, hn = 0, hin = 0, bare = 0;
    for (guint i = 0; i < rep->stats->len; i++)
        n += ((const PrismValidateStat *)g_ptr_array_index(rep->stats, i))->iv_n;
    if (n == 0)
        return;
    g_string_append(o, "\nstep-time intervals per source (ranges: every ranged knob at its "
                       "optimistic and pessimistic published end,\nprism knobs --sources; not "
                       "widened. held out: the interval plan shows, widened by the track record "
                       "of the\nrow's device family and framework built from the other sources "
                       "only; not widened where no other source has one):\n");
    g_string_append_printf(o, "%-31s %-9s %-16s %-10s %-16s %-10s %s\n", "source", "kind",
                           "ranges inside", "width", "held out inside", "width", "not widened");
    double w = 0, hw = 0;
    for (guint i = 0; i < rep->stats->len; i++) {
        const PrismValidateStat *st = g_ptr_array_index(rep->stats, i);
        if (st->iv_n == 0)
            continue;
        g_autofree char *c = inside_text(st->iv_inside, st->iv_n);
        g_autofree char *h = inside_text(st->ho_inside, st->ho_n);
        g_autofree char *hwid =
            st->ho_n ? g_strdup_printf("%.1f%%", st->ho_width / st->ho_n) : g_strdup("-");
        g_autofree char *wid = g_strdup_printf("%.1f%%", st->iv_width / st->iv_n);
        g_string_append_printf(o, "%-31s %-9s %-16s %-10s %-16s %-10s %d\n", st->source,
                               prism_validate_kind_name(st->kind), c, wid, h, hwid, st->ho_bare);
        in += st->iv_inside;
        w += st->iv_width;
        hn += st->ho_n;
        hin += st->ho_inside;
        hw += st->ho_width;
        bare += st->ho_bare;
    }
    g_autofree char *c = inside_text(in, n);
    g_autofree char *h = inside_text(hin, hn);
    g_autofree char *wid = g_strdup_printf("%.1f%%", w / n);
    g_autofree char *hwid = hn ? g_strdup_printf("%.1f%%", hw / hn) : g_strdup("-");
    g_string_append_printf(o, "%-31s %-9s %-16s %-10s %-16s %-10s %d\n", "all", "", c, wid, h, hwid,
                           bare);
}

/* The track records of this CSV: one per (device family, framework) of its modelled rows,
 * in first-appearance order, as plan and explain would print them for that setup (from
 * this CSV alone). Ownership: g_ptr_array_unref(). */
static GPtrArray *track_records(const PrismValidateReport *rep)
{
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)prism_track_record_free);
    for (guint i = 0; i < rep->rows->len; i++) {
        const PrismValidateRow *r = g_ptr_array_index(rep->rows, i);
        if (r->kind == PRISM_VALIDATE_SKIPPED || r->oom || r->cluster == NULL)
            continue;
        g_autofree char *fam = prism_device_family(r->cluster);
        gboolean seen = FALSE;
        for (guint j = 0; j < out->len && !seen; j++) {
            const PrismTrackRecord *t = g_ptr_array_index(out, j);
            seen = strcmp(t->family, fam) == 0 && g_strcmp0(t->framework, r->framework) == 0;
        }
        if (seen)
            continue;
        PrismTrackRecord *t = prism_track_record_new(fam, r->framework);
        prism_track_record_add(t, rep);
        prism_track_record_finish(t);
        if (t->rows > 0)
            g_ptr_array_add(out, t);
        else
            prism_track_record_free(t);
    }
    return out;
}

/* One order entry's cells: "93.8 % (7.5 of 8)" and "3 of 4" ("-" when none). */
static char *order_same(const PrismValidateOrder *o)
{
    return o->pairs == 0 ? g_strdup("-")
                         : g_strdup_printf("%.1f %% (%g of %d)", 100.0 * o->same / o->pairs,
                                           o->same, o->pairs);
}

static char *order_fastest(const PrismValidateOrder *o)
{
    return o->fastest_groups == 0
               ? g_strdup("-")
               : g_strdup_printf("%d of %d", o->fastest_agree, o->fastest_groups);
}

/* The order statistic (validate.h, prism_validate_order): does prism put the runs of one
 * workload in their measured order? */
static void order_text(GString *o, const PrismValidateReport *rep)
{
    g_autoptr(GPtrArray) ord = prism_validate_order(rep, PRISM_VALIDATE_ORDER_TIE);
    if (ord->len == 0)
        return;
    g_string_append_printf(
        o,
        "\norder within groups (rows of a source with the same model, device, device count, "
        "batch and sequence, differing in\nstrategy or settings; planned rows with their best "
        "strategy): of the pairs whose measured speeds differ by %g %% or more\n(speed: step "
        "time, else TFLOP/s, else MFU), those prism orders as measured; and the groups whose "
        "measured fastest row\nprism also predicts fastest\n",
        100.0 * PRISM_VALIDATE_ORDER_TIE);
    g_string_append_printf(o, "%-31s %6s %6s %6s  %-24s %s\n", "source", "groups", "pairs", "ties",
                           "same order", "fastest row agrees");
    for (guint i = 0; i < ord->len; i++) {
        const PrismValidateOrder *e = g_ptr_array_index(ord, i);
        g_autofree char *same = order_same(e), *fast = order_fastest(e);
        g_string_append_printf(o, "%-31s %6d %6d %6d  %-24s %s\n", e->source ? e->source : "all",
                               e->groups, e->pairs, e->ties, same, fast);
    }
    /* the reversed pairs, to take apart with --explain (the JSON lists every pair) */
    g_autoptr(GArray) pairs = prism_validate_order_pairs(rep, PRISM_VALIDATE_ORDER_TIE);
    gboolean head = FALSE;
    for (guint i = 0; i < pairs->len; i++) {
        const PrismValidateOrderPair *p = &g_array_index(pairs, PrismValidateOrderPair, i);
        if (p->same > 0.0)
            continue;
        if (!head)
            g_string_append(o, "reversed pairs (prism predicts the other run faster; `--json` "
                               "lists every pair in order.pairs):\n");
        head = TRUE;
        const int k = p->metric;
        g_string_append_printf(o,
                               "  %s %s, %s: line %d measured %.4g predicted %.4g; line %d "
                               "measured %.4g predicted %.4g\n",
                               p->a->source, p->a->model, prism_validate_metric_name(k), p->a->line,
                               p->a->meas[k], p->a->pred[k], p->b->line, p->b->meas[k],
                               p->b->pred[k]);
    }
}

static void json_num(JsonBuilder *b, const char *name, double v);

/* "12.5 %" of @p n of @p d, "-" when d is 0. */
static char *share_text(int n, int d)
{
    return d == 0 ? g_strdup("-") : g_strdup_printf("%.1f %% (%d of %d)", 100.0 * n / d, n, d);
}

/* What a user choosing by prism feels (validate.h, PrismValidateRegret): per source the
 * regret of prism's pick and the feasibility verdicts both ways. */
static void feel_text(GString *o, const GPtrArray *feel, const char *title)
{
    if (feel->len == 0)
        return;
    g_string_append_printf(
        o,
        "\n%s: regret (groups of predicted rows that differ only in strategy: same model, "
        "cluster, devices, batch,\nsequence, dtype and framework; how much slower the run "
        "prism predicts fastest measured than the measured fastest)\nand feasibility both "
        "ways (measured failures predicted infeasible; measured runs predicted feasible)\n",
        title);
    g_string_append_printf(o, "%-31s %6s %12s %12s  %-16s %-26s %s\n", "source", "groups",
                           "mean regret", "worst regret", "picks fastest", "failures flagged",
                           "runs predicted feasible");
    for (guint i = 0; i < feel->len; i++) {
        const PrismValidateRegret *e = g_ptr_array_index(feel, i);
        g_autofree char *mean =
            e->groups ? g_strdup_printf("%.1f %%", e->regret_sum / e->groups) : g_strdup("-");
        g_autofree char *worst =
            e->groups ? g_strdup_printf("%.1f %%", e->regret_worst) : g_strdup("-");
        g_autofree char *picks =
            e->groups ? g_strdup_printf("%d of %d", e->picks_fastest, e->groups) : g_strdup("-");
        g_autofree char *fl = share_text(e->oom_flagged, e->oom_rows);
        g_autofree char *fe = share_text(e->ok_feasible, e->ok_rows);
        g_string_append_printf(o, "%-31s %6d %12s %12s  %-16s %-26s %s\n",
                               e->source ? e->source : "all", e->groups, mean, worst, picks, fl,
                               fe);
    }
    int sg = 0;
    for (guint i = 0; i < feel->len; i++)
        sg += ((const PrismValidateRegret *)g_ptr_array_index(feel, i))->simplest_groups;
    if (sg == 0)
        return;
    g_string_append(o, "plan --pick simplest in the groups above (the simplest run of those "
                       "equivalent to the predicted fastest): regret mean / worst (groups);\n"
                       "  with no tolerance, and with plan's tolerance from the track record "
                       "without the group's source (held out)\n");
    for (guint i = 0; i < feel->len; i++) {
        const PrismValidateRegret *e = g_ptr_array_index(feel, i);
        if (e->simplest_groups == 0)
            continue;
        g_autofree char *held =
            e->simplest_held_groups
                ? g_strdup_printf("%.1f %% / %.1f %% (%d)",
                                  e->simplest_held_sum / e->simplest_held_groups,
                                  e->simplest_held_worst, e->simplest_held_groups)
                : g_strdup("-");
        g_autofree char *none =
            g_strdup_printf("%.1f %% / %.1f %% (%d)", e->simplest_sum / e->simplest_groups,
                            e->simplest_worst, e->simplest_groups);
        g_string_append_printf(o, "  %-31s %-26s held out: %s\n", e->source ? e->source : "all",
                               none, held);
    }
}

/* One list entry as a JSON object (source null: several sources together). */
static void feel_json(JsonBuilder *b, const GPtrArray *feel)
{
    json_builder_begin_array(b);
    for (guint i = 0; i < feel->len; i++) {
        const PrismValidateRegret *e = g_ptr_array_index(feel, i);
        json_builder_begin_object(b);
        prism_app_json_string(b, "source", e->source);
        const struct {
            const char *n;
            int v;
        } c[] = {{"groups", e->groups},
                 {"picks_fastest", e->picks_fastest},
                 {"failed_rows", e->oom_rows},
                 {"failed_flagged", e->oom_flagged},
                 {"measured_rows", e->ok_rows},
                 {"measured_feasible", e->ok_feasible},
                 {"simplest_groups", e->simplest_groups},
                 {"simplest_held_out_groups", e->simplest_held_groups}};
        for (size_t j = 0; j < G_N_ELEMENTS(c); j++) {
            json_builder_set_member_name(b, c[j].n);
            json_builder_add_int_value(b, c[j].v);
        }
        json_num(b, "regret_mean_pct", e->groups ? e->regret_sum / e->groups : NAN);
        json_num(b, "regret_worst_pct", e->groups ? e->regret_worst : NAN);
        json_num(b, "failed_flagged_share",
                 e->oom_rows ? (double)e->oom_flagged / e->oom_rows : NAN);
        json_num(b, "measured_feasible_share",
                 e->ok_rows ? (double)e->ok_feasible / e->ok_rows : NAN);
        /* `plan --pick simplest`'s regret: no tolerance, and plan's from the held-out record */
        const int sg = e->simplest_groups, hg = e->simplest_held_groups;
        json_num(b, "simplest_regret_mean_pct", sg ? e->simplest_sum / sg : NAN);
        json_num(b, "simplest_regret_worst_pct", sg ? e->simplest_worst : NAN);
        json_num(b, "simplest_held_out_regret_mean_pct", hg ? e->simplest_held_sum / hg : NAN);
        json_num(b, "simplest_held_out_regret_worst_pct", hg ? e->simplest_held_worst : NAN);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

/* What a row's line ends with, after its numbers: the row's knobs, the profile's note on
 * its strategy, its OOM verdict, and the newline. */
static void row_tags(GString *o, const PrismValidateRow *r)
{
    if (r->knobs != NULL)
        g_string_append_printf(o, "  [knobs: %s]", r->knobs);
    if (r->unsupported != NULL)
        g_string_append_printf(o, "  [stock %s would not run it: %s]", r->framework,
                               r->unsupported);
    if (r->oom)
        g_string_append_printf(o, "  [OOM row: %s]", r->fits ? "NOT flagged" : "flagged");
    g_string_append_c(o, '\n');
}

static char *render_text(const PrismValidateReport *rep)
{
    GString *o = g_string_new(NULL);
    g_string_append_printf(o, "prism validate: %s\n\n", rep->path);
    g_string_append_printf(o, "%-20s %-15s %-52s %26s %26s %26s %26s\n", "source", "model",
                           "strategy", "peak GiB pred/meas/err", "step s  pred/meas/err",
                           "TFLOP/s  pred/meas/err", "MFU  pred/meas/err");
    for (guint i = 0; i < rep->rows->len; i++) {
        const PrismValidateRow *r = g_ptr_array_index(rep->rows, i);
        if (r->kind != PRISM_VALIDATE_PREDICTED)
            continue;
        g_string_append_printf(o, "%-20s %-15s %-52s", r->source, r->model, r->strategy);
        for (int k = 0; k < PRISM_VM_COUNT; k++)
            cell(o, r, k);
        if (r->defaults && *r->defaults)
            g_string_append_printf(o, "  [defaults %s: %s]", r->framework, r->defaults);
        row_tags(o, r);
    }
    static const int all4[] = {0, 1, 2, 3}, three[] = {1, 2, 3};
    g_string_append(o, "\nabsolute percentage error per source: mean / worst (rows)\n");
    summary(o, rep, PRISM_VALIDATE_PREDICTED, all4, 4, FALSE);
    summary(o, rep, PRISM_VALIDATE_PREDICTED, all4, 4, TRUE);
    g_string_append_printf(o, "\n%d rows predicted, %d planned, %d skipped", rep->n_predicted,
                           rep->n_planned, rep->n_skipped);
    if (rep->n_moe)
        g_string_append_printf(o, " (%d MoE rows modelled)", rep->n_moe);
    g_string_append_c(o, '\n');
    if (rep->n_oom + rep->n_oom_skipped)
        g_string_append_printf(o,
                               "OOM rows: %d modelled (%d flagged infeasible, %d not flagged), "
                               "%d skipped\n",
                               rep->n_oom, rep->n_oom_flagged, rep->n_oom - rep->n_oom_flagged,
                               rep->n_oom_skipped);
    if (rep->n_planned) {
        g_string_append(
            o, "\nPLANNED rows (not direct predictions, not in the statistics above): the row "
               "leaves strategy dims unstated and\nits framework profile has no default for "
               "them, so the known dims are fixed and the search picks the rest within\nwhat "
               "the framework supports; the best strategy's predicted throughput (ACHIEVABLE "
               "throughput) is compared.\n");
        g_string_append_printf(o, "%-20s %-10s %-24s %17s %-84s %26s %26s %26s\n", "source",
                               "model", "fixed", "feasible/searched", "best strategy found",
                               "step s  pred/meas/err", "TFLOP/s  pred/meas/err",
                               "MFU  pred/meas/err");
        for (guint i = 0; i < rep->rows->len; i++) {
            const PrismValidateRow *r = g_ptr_array_index(rep->rows, i);
            if (r->kind != PRISM_VALIDATE_PLANNED)
                continue;
            g_string_append_printf(
                o, "%-20s %-10s %-24s %8" G_GUINT64_FORMAT "/%-8" G_GUINT64_FORMAT " %-84s",
                r->source, r->model, r->fixed, r->feasible, r->searched,
                r->strategy ? r->strategy : "nothing fits");
            cell(o, r, PRISM_VM_STEP);
            cell(o, r, PRISM_VM_TFLOPS);
            cell(o, r, PRISM_VM_MFU);
            g_string_append_printf(o, "  [planned: %s]", r->planned);
            row_tags(o, r);
        }
        g_string_append(o,
                        "\nplanned: absolute percentage error per source: mean / worst (rows)\n");
        summary(o, rep, PRISM_VALIDATE_PLANNED, three, 3, FALSE);
        summary(o, rep, PRISM_VALIDATE_PLANNED, three, 3, TRUE);
    }
    coverage(o, rep);
    order_text(o, rep);
    g_autoptr(GPtrArray) feel = prism_validate_regret(rep);
    feel_text(o, feel, "what users feel per source");
    if (rep->n_skipped) {
        g_string_append(o, "\nskipped rows:\n");
        for (guint i = 0; i < rep->rows->len; i++) {
            const PrismValidateRow *r = g_ptr_array_index(rep->rows, i);
            if (r->kind == PRISM_VALIDATE_SKIPPED)
                g_string_append_printf(o, "  line %d %s %s: %s\n", r->line, r->source, r->model,
                                       r->reason);
        }
    }
    g_autoptr(GPtrArray) tracks = track_records(rep);
    if (tracks->len > 0) {
        g_string_append(o, "\ntrack record per device family and framework (signed mean: + = "
                           "predicted faster / more memory; what plan and explain print,\n"
                           "there from every shipped CSV):\n");
        for (guint i = 0; i < tracks->len; i++) {
            g_autofree char *line = prism_app_track_line(g_ptr_array_index(tracks, i));
            g_string_append_printf(o, "  %s\n", line);
        }
    }
    g_string_append(o, "\nframework profiles used (`prism frameworks NAME` shows one; never "
                       "fitted):\n");
    for (guint i = 0; i < rep->frameworks->len; i++) {
        const PrismFramework *fw = g_ptr_array_index(rep->frameworks, i);
        g_string_append_printf(o, "  %s: %s [memory counts %s] (%s)\n", fw->name, fw->title,
                               prism_mem_counts_name(fw->counts), fw->path);
    }
    return g_string_free(o, FALSE);
}

static void json_num(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    if (isnan(v))
        json_builder_add_null_value(b);
    else
        json_builder_add_double_value(b, v);
}

static void json_row(JsonBuilder *b, const PrismValidateRow *r)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "line");
    json_builder_add_int_value(b, r->line);
    prism_app_json_string(b, "source", r->source);
    prism_app_json_string(b, "model", r->model);
    prism_app_json_string(b, "kind", prism_validate_kind_name(r->kind));
    prism_app_json_string(b, "framework", r->framework);
    prism_app_json_string(b, "framework_from", r->framework_from);
    prism_app_json_string(b, "reason", r->reason);
    json_builder_set_member_name(b, "inputs");
    json_builder_begin_object(b);
    const struct {
        const char *n;
        double v;
    } in[] = {{"devices", r->devices}, {"tp", r->tp},          {"pp", r->pp},
              {"cp", r->cp},           {"ep", r->ep},          {"dp", r->dp},
              {"gbs", (double)r->gbs}, {"seq", (double)r->seq}};
    for (size_t i = 0; i < G_N_ELEMENTS(in); i++)
        json_num(b, in[i].n, in[i].v > 0 ? in[i].v : NAN);
    prism_app_json_string(b, "cluster", r->cluster);
    prism_app_json_string(b, "dtype", r->dtype);
    prism_app_json_string(b, "defaults", r->defaults);
    prism_app_json_string(b, "knobs", r->knobs);
    prism_app_json_string(b, "planned", r->planned);
    prism_app_json_string(b, "fixed", r->fixed);
    prism_app_json_string(b, "only", r->only);
    json_builder_end_object(b);
    prism_app_json_string(b, "strategy", r->strategy);
    prism_app_json_string(b, "framework_unsupported", r->unsupported);
    if (r->kind == PRISM_VALIDATE_PLANNED) {
        json_num(b, "searched", (double)r->searched);
        json_num(b, "feasible", (double)r->feasible);
    }
    json_builder_set_member_name(b, "oom_row");
    json_builder_add_boolean_value(b, r->oom);
    json_builder_set_member_name(b, "fits");
    if (r->kind == PRISM_VALIDATE_SKIPPED)
        json_builder_add_null_value(b);
    else
        json_builder_add_boolean_value(b, r->fits);
    /* the step interval of the knob ranges alone (with the step at each corner), and the
     * one plan shows with the row's source left out of the track record (null: none) */
    json_builder_set_member_name(b, "step_interval");
    if (isnan(r->step_lo)) {
        json_builder_add_null_value(b);
    } else {
        const struct {
            const char *n;
            double v;
        } iv[] = {{"lo", r->step_lo},
                  {"hi", r->step_hi},
                  {"fast", r->step_fast},
                  {"slow", r->step_slow},
                  {"held_out_lo", r->held_lo},
                  {"held_out_hi", r->held_hi},
                  {"held_out_widen", r->held_widen}};
        json_builder_begin_object(b);
        for (size_t i = 0; i < G_N_ELEMENTS(iv); i++)
            json_num(b, iv[i].n, iv[i].v);
        json_builder_end_object(b);
    }
    /* what the memory figures count (allocated, reserved, device), null when not modelled */
    prism_app_json_string(b, "peak_mem_counts",
                          r->mem_counts >= 0 ? prism_mem_counts_name((PrismMemCounts)r->mem_counts)
                                             : NULL);
    static const char *const groups[] = {"predicted", "measured", "error_pct"};
    for (int g = 0; g < 3; g++) {
        const double *v = g == 0 ? r->pred : g == 1 ? r->meas : r->err;
        json_builder_set_member_name(b, groups[g]);
        json_builder_begin_object(b);
        for (int k = 0; k < PRISM_VM_COUNT; k++) /* memory in bytes, as plan and explain */
            json_num(b, prism_validate_metric_name(k),
                     k == PRISM_VM_MEM && g < 2 ? v[k] * 1073741824.0 : v[k]);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
}

/* One order entry as a JSON object (source null: every source together). */
static void order_json(JsonBuilder *b, const PrismValidateOrder *e)
{
    json_builder_begin_object(b);
    prism_app_json_string(b, "source", e->source);
    prism_app_order_json_members(b, e);
    json_builder_end_object(b);
}

/* The report of one CSV as a JSON object. */
static void json_report(JsonBuilder *b, const PrismValidateReport *rep)
{
    json_builder_begin_object(b);
    prism_app_json_string(b, "csv", rep->path);
    /* the unit of each metric of the rows' predicted and measured members (memory in bytes,
     * as plan's and explain's JSON; the text prints GiB) */
    json_builder_set_member_name(b, "units");
    json_builder_begin_object(b);
    static const char *const units[PRISM_VM_COUNT] = {"B", "s", "TFLOP/s", "1"};
    for (int k = 0; k < PRISM_VM_COUNT; k++) {
        json_builder_set_member_name(b, prism_validate_metric_name(k));
        json_builder_add_string_value(b, units[k]);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "counts");
    json_builder_begin_object(b);
    const struct {
        const char *n;
        int v;
    } c[] = {{"rows", (int)rep->rows->len},
             {"predicted", rep->n_predicted},
             {"planned", rep->n_planned},
             {"skipped", rep->n_skipped},
             {"moe_rows", rep->n_moe},
             {"oom_rows", rep->n_oom},
             {"oom_flagged", rep->n_oom_flagged},
             {"oom_skipped", rep->n_oom_skipped}};
    for (size_t i = 0; i < G_N_ELEMENTS(c); i++) {
        json_builder_set_member_name(b, c[i].n);
        json_builder_add_int_value(b, c[i].v);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "rows");
    json_builder_begin_array(b);
    for (guint i = 0; i < rep->rows->len; i++)
        json_row(b, g_ptr_array_index(rep->rows, i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "statistics");
    json_builder_begin_array(b);
    for (guint i = 0; i < rep->stats->len; i++) {
        const PrismValidateStat *st = g_ptr_array_index(rep->stats, i);
        json_builder_begin_object(b);
        prism_app_json_string(b, "source", st->source);
        prism_app_json_string(b, "kind", prism_validate_kind_name(st->kind));
        json_builder_set_member_name(b, "rows");
        json_builder_add_int_value(b, st->rows);
        for (int k = 0; k < PRISM_VM_COUNT; k++) {
            json_builder_set_member_name(b, prism_validate_metric_name(k));
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "n");
            json_builder_add_int_value(b, st->n[k]);
            json_num(b, "mean_pct", st->n[k] ? st->sum[k] / st->n[k] : NAN);
            json_num(b, "mean_signed_pct", st->n[k] ? st->signed_sum[k] / st->n[k] : NAN);
            json_num(b, "worst_pct", st->n[k] ? st->worst[k] : NAN);
            json_builder_end_object(b);
        }
        json_builder_set_member_name(b, "step_interval");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "n");
        json_builder_add_int_value(b, st->iv_n);
        json_builder_set_member_name(b, "inside");
        json_builder_add_int_value(b, st->iv_inside);
        json_num(b, "mean_width_pct", st->iv_n ? st->iv_width / st->iv_n : NAN);
        /* the interval plan shows, the row's source left out (prism_track_holdout) */
        json_builder_set_member_name(b, "held_out");
        json_builder_begin_object(b);
        const struct {
            const char *n;
            int v;
        } h[] = {{"n", st->ho_n}, {"inside", st->ho_inside}, {"not_widened", st->ho_bare}};
        for (size_t j = 0; j < G_N_ELEMENTS(h); j++) {
            json_builder_set_member_name(b, h[j].n);
            json_builder_add_int_value(b, h[j].v);
        }
        json_num(b, "mean_width_pct", st->ho_n ? st->ho_width / st->ho_n : NAN);
        json_builder_end_object(b);
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    g_autoptr(GPtrArray) ord = prism_validate_order(rep, PRISM_VALIDATE_ORDER_TIE);
    json_builder_set_member_name(b, "order");
    json_builder_begin_object(b);
    json_num(b, "tie", PRISM_VALIDATE_ORDER_TIE);
    json_builder_set_member_name(b, "sources");
    json_builder_begin_array(b);
    for (guint i = 0; i < ord->len; i++)
        order_json(b, g_ptr_array_index(ord, i));
    json_builder_end_array(b);
    g_autoptr(GArray) pairs = prism_validate_order_pairs(rep, PRISM_VALIDATE_ORDER_TIE);
    json_builder_set_member_name(b, "pairs");
    json_builder_begin_array(b);
    for (guint i = 0; i < pairs->len; i++) {
        const PrismValidateOrderPair *p = &g_array_index(pairs, PrismValidateOrderPair, i);
        const int k = p->metric;
        json_builder_begin_object(b);
        prism_app_json_string(b, "source", p->a->source);
        prism_app_json_string(b, "model", p->a->model);
        prism_app_json_string(b, "metric", prism_validate_metric_name(k));
        const struct {
            const char *n;
            double a, b;
        } v[] = {{"lines", p->a->line, p->b->line},
                 {"measured", p->a->meas[k], p->b->meas[k]},
                 {"predicted", p->a->pred[k], p->b->pred[k]}};
        for (size_t j = 0; j < G_N_ELEMENTS(v); j++) {
            json_builder_set_member_name(b, v[j].n);
            json_builder_begin_array(b);
            json_builder_add_double_value(b, v[j].a);
            json_builder_add_double_value(b, v[j].b);
            json_builder_end_array(b);
        }
        json_num(b, "same_order", p->same);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autoptr(GPtrArray) tracks = track_records(rep);
    json_builder_set_member_name(b, "track_records");
    json_builder_begin_array(b);
    for (guint i = 0; i < tracks->len; i++)
        prism_app_track_json_object(b, g_ptr_array_index(tracks, i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "frameworks");
    json_builder_begin_array(b);
    for (guint i = 0; i < rep->frameworks->len; i++) {
        const PrismFramework *fw = g_ptr_array_index(rep->frameworks, i);
        json_builder_add_string_value(b, fw->name);
    }
    json_builder_end_array(b);
    g_autoptr(GPtrArray) feel = prism_validate_regret(rep);
    json_builder_set_member_name(b, "feel");
    feel_json(b, feel);
    json_builder_end_object(b);
}

/* Every source of @p reps together: its rows may be split over several CSVs (its runs and
 * its failures), then a last entry (source null) for all of them when there are two or
 * more. Ownership: g_ptr_array_unref(). */
static GPtrArray *feel_all(PrismValidateReport *const *reps, guint n)
{
    GPtrArray *feel = prism_validate_regret_list_new();
    for (guint i = 0; i < n; i++)
        prism_validate_regret_collect(reps[i], feel);
    if (feel->len >= 2) {
        const guint m = feel->len;
        PrismValidateRegret *all = prism_validate_regret_entry(feel, NULL);
        for (guint i = 0; i < m; i++)
            prism_validate_regret_add(all, g_ptr_array_index(feel, i));
    }
    return feel;
}

/* One CSV: its report object; several: {"csvs": [report, ...], "feel": every source}. */
static void render_json(FILE *f, PrismValidateReport *const *reps, guint n)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    if (n == 1) {
        json_report(b, reps[0]);
    } else {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "csvs");
        json_builder_begin_array(b);
        for (guint i = 0; i < n; i++)
            json_report(b, reps[i]);
        json_builder_end_array(b);
        g_autoptr(GPtrArray) feel = feel_all(reps, n);
        json_builder_set_member_name(b, "feel");
        feel_json(b, feel);
        json_builder_end_object(b);
    }
    prism_app_print_json(f, b);
}

/* --explain LINE: the row's comparison, then every cost term of its strategy under its
 * cost model (its profile, defaults, cluster, dtype and knobs), as `prism explain`
 * prints them. A row that was not modelled, or planned with nothing that fits, has no
 * strategy to explain: bad input (exit status 2), with the reason. */
static gboolean render_explain(FILE *f, const PrismValidateReport *rep, gboolean json,
                               GError **error)
{
    const PrismValidateRow *r = g_ptr_array_index(rep->rows, 0);
    if (r->explain == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "validation CSV %s: --explain %d: the row (%s %s) is %s%s%s", rep->path,
                    r->line, r->source, r->model, prism_validate_kind_name(r->kind),
                    r->kind == PRISM_VALIDATE_SKIPPED ? ": " : " and nothing fits",
                    r->kind == PRISM_VALIDATE_SKIPPED ? r->reason : "");
        return FALSE;
    }
    if (f == NULL)
        return TRUE;
    g_autofree char *text = prism_app_explain_render(r->explain, json);
    if (json) {
        g_autoptr(JsonParser) parser = json_parser_new();
        if (!json_parser_load_from_data(parser, text, -1, error))
            return FALSE;
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        prism_app_json_string(b, "csv", rep->path);
        json_builder_set_member_name(b, "row");
        json_row(b, r);
        json_builder_set_member_name(b, "explain");
        json_builder_add_value(b, json_node_copy(json_parser_get_root(parser)));
        json_builder_end_object(b);
        prism_app_print_json(f, b);
        return TRUE;
    }
    fprintf(f, "prism validate: %s line %d: %s %s, %s under %s (%s), %s on %s\n", rep->path,
            r->line, r->source, r->model, prism_validate_kind_name(r->kind), r->framework,
            r->framework_from, r->dtype, r->cluster);
    if (r->defaults && *r->defaults)
        fprintf(f, "dims from the defaults (the profile's; sources.ini's where marked): %s\n",
                r->defaults);
    if (r->knobs != NULL)
        fprintf(f, "knobs from the row: %s\n", r->knobs);
    if (r->kind == PRISM_VALIDATE_PLANNED)
        fprintf(f, "dims planned: %s (fixed %s): the best of %" G_GUINT64_FORMAT " strategies\n",
                r->planned, r->fixed, r->searched);
    static const char *const names[] = {"peak memory GiB", "step time s", "TFLOP/s per GPU", "MFU"};
    fprintf(f, "%-16s %12s %12s %8s\n", "", "predicted", "measured", "error");
    for (int k = 0; k < PRISM_VM_COUNT; k++) {
        if (isnan(r->pred[k]) && isnan(r->meas[k]))
            continue;
        const Cell c = cell_text(r, k, TRUE);
        fprintf(f, "%-16s %12s %12s %8s\n", names[k], c.pred, c.meas, *c.err ? c.err : "-");
    }
    fprintf(f, "(signed: + = predicted higher; peak memory as the row counts it: %s)\n\n",
            r->mem_counts >= 0 ? prism_mem_counts_name((PrismMemCounts)r->mem_counts) : "-");
    fputs(text, f);
    return TRUE;
}

/* --vary NAME=V1,V2,...: the CSV validated once per value of one knob (given over every
 * row's profile, as --set NAME=V would be), and per source, kind and metric the mean
 * absolute and signed errors side by side: how much a convention or a physical figure
 * moves each source, in one command. Collective like prism_validate_run(). */
#define VARY_MAX 16

typedef struct {
    char *knob;
    PrismKnobId id;
    double values[VARY_MAX];
    char *text[VARY_MAX]; /* as given */
    size_t n;
} Vary;

static void vary_clear(Vary *v)
{
    g_free(v->knob);
    for (size_t i = 0; i < v->n; i++)
        g_free(v->text[i]);
}

static gboolean vary_parse(const char *arg, Vary *v, GError **error)
{
    const char *eq = strchr(arg, '=');
    g_auto(GStrv) parts = eq ? g_strsplit(eq + 1, ",", -1) : NULL;
    const guint n = parts ? g_strv_length(parts) : 0;
    if (eq == NULL || n == 0 || n > VARY_MAX) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "--vary '%s': give NAME=V1,V2,... (1 to %d values of one knob)", arg, VARY_MAX);
        return FALSE;
    }
    v->knob = g_strstrip(g_strndup(arg, (gsize)(eq - arg)));
    if (!prism_knob_lookup(v->knob, &v->id, error)) {
        g_prefix_error(error, "--vary: ");
        return FALSE;
    }
    for (guint i = 0; i < n; i++) {
        /* each value parsed and range-checked as --set NAME=V would be */
        PrismKnobs probe;
        prism_knobs_default(&probe);
        g_autofree char *a = g_strdup_printf("%s=%s", v->knob, g_strstrip(parts[i]));
        if (!prism_knobs_set(&probe, a, error)) {
            g_prefix_error(error, "--vary: ");
            return FALSE;
        }
        v->values[v->n] = probe.v[v->id];
        v->text[v->n++] = g_strdup(parts[i]);
    }
    return TRUE;
}

/* The statistic of (source, kind) in @p rep, NULL when the source has none of that kind. */
static const PrismValidateStat *find_stat(const PrismValidateReport *rep, const char *source,
                                          PrismValidateKind kind)
{
    for (guint i = 0; i < rep->stats->len; i++) {
        const PrismValidateStat *st = g_ptr_array_index(rep->stats, i);
        if (st->kind == kind && strcmp(st->source, source) == 0)
            return st;
    }
    return NULL;
}

/* The order entry of @p source (NULL: all together) in @p ord, NULL when absent. */
static const PrismValidateOrder *find_order(const GPtrArray *ord, const char *source)
{
    for (guint i = 0; i < ord->len; i++) {
        const PrismValidateOrder *e = g_ptr_array_index(ord, i);
        if (g_strcmp0(e->source, source) == 0)
            return e;
    }
    return NULL;
}

/* render_vary, phase 1: the rows of the order table (@p ords: each value's order
 * entries). */
static GPtrArray *vary_order_sources(GPtrArray *const *ords, size_t n)
{
    /* the rows of the order table: every source that has an entry at some value, in the
     * first report's order, then the others', then "all" */
    GPtrArray *osrc = g_ptr_array_new();
    gboolean any_all = FALSE;
    for (size_t i = 0; i < n; i++) {
        for (guint j = 0; j < ords[i]->len; j++) {
            const PrismValidateOrder *e = g_ptr_array_index(ords[i], j);
            gboolean seen = FALSE;
            for (guint q = 0; q < osrc->len && !seen; q++)
                seen = strcmp(g_ptr_array_index(osrc, q), e->source ? e->source : "") == 0;
            if (e->source == NULL)
                any_all = TRUE;
            else if (!seen)
                g_ptr_array_add(osrc, e->source);
        }
    }
    if (any_all)
        g_ptr_array_add(osrc, NULL);
    return osrc;
}

/* Phase 2, --json: the statistics and order entries, one array of values per field. */
static void vary_json(FILE *f, const Vary *v, PrismValidateReport *const *reps,
                      GPtrArray *const *ords, const GPtrArray *osrc)
{
    const PrismValidateReport *r0 = reps[0];
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    prism_app_json_string(b, "csv", r0->path);
    prism_app_json_string(b, "knob", v->knob);
    json_builder_set_member_name(b, "values");
    json_builder_begin_array(b);
    for (size_t i = 0; i < v->n; i++)
        json_builder_add_double_value(b, v->values[i]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "oom_flagged");
    json_builder_begin_array(b);
    for (size_t i = 0; i < v->n; i++)
        json_builder_add_int_value(b, reps[i]->n_oom_flagged);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "statistics");
    json_builder_begin_array(b);
    for (guint s = 0; s < r0->stats->len; s++) {
        const PrismValidateStat *st0 = g_ptr_array_index(r0->stats, s);
        for (int k = 0; k < PRISM_VM_COUNT; k++) {
            if (st0->n[k] == 0)
                continue;
            json_builder_begin_object(b);
            prism_app_json_string(b, "source", st0->source);
            prism_app_json_string(b, "kind", prism_validate_kind_name(st0->kind));
            prism_app_json_string(b, "metric", prism_validate_metric_name(k));
            static const char *const fields[] = {"n", "mean_pct", "mean_signed_pct", "worst_pct"};
            for (int fi = 0; fi < 4; fi++) {
                json_builder_set_member_name(b, fields[fi]);
                json_builder_begin_array(b);
                for (size_t i = 0; i < v->n; i++) {
                    const PrismValidateStat *st = find_stat(reps[i], st0->source, st0->kind);
                    const int n = st ? st->n[k] : 0;
                    if (fi == 0)
                        json_builder_add_int_value(b, n);
                    else if (n == 0)
                        json_builder_add_null_value(b);
                    else
                        json_builder_add_double_value(b, fi == 1   ? st->sum[k] / n
                                                         : fi == 2 ? st->signed_sum[k] / n
                                                                   : st->worst[k]);
                }
                json_builder_end_array(b);
            }
            json_builder_end_object(b);
        }
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "order");
    json_builder_begin_array(b);
    for (guint q = 0; q < osrc->len; q++) {
        const char *src = g_ptr_array_index(osrc, q);
        json_builder_begin_object(b);
        prism_app_json_string(b, "source", src);
        static const char *const fields[] = {"pairs", "same_order", "fastest_groups",
                                             "fastest_agree"};
        for (int fi = 0; fi < 4; fi++) {
            json_builder_set_member_name(b, fields[fi]);
            json_builder_begin_array(b);
            for (size_t i = 0; i < v->n; i++) {
                const PrismValidateOrder *e = find_order(ords[i], src);
                if (fi == 1)
                    json_builder_add_double_value(b, e ? e->same : 0.0);
                else
                    json_builder_add_int_value(b, e == NULL ? 0
                                                  : fi == 0 ? e->pairs
                                                  : fi == 2 ? e->fastest_groups
                                                            : e->fastest_agree);
            }
            json_builder_end_array(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    prism_app_print_json(f, b);
}

/* Phase 2, text: one column per value. */
static void vary_text(FILE *f, const Vary *v, PrismValidateReport *const *reps,
                      GPtrArray *const *ords, const GPtrArray *osrc)
{
    const PrismValidateReport *r0 = reps[0];
    static const char *const names[] = {"peak memory", "step time", "TFLOP/s", "MFU"};
    fprintf(f, "prism validate: %s, knob %s over", r0->path, v->knob);
    for (size_t i = 0; i < v->n; i++)
        fprintf(f, "%s %s", i ? "," : "", v->text[i]);
    fprintf(f, " (given over every row's profile, as --set would)\nmean absolute error "
               "(signed mean, + = predicted higher) per source and metric; rows in brackets\n");
    fprintf(f, "%-31s %-9s %-12s", "source", "kind", "metric");
    for (size_t i = 0; i < v->n; i++) {
        g_autofree char *h = g_strdup_printf("%s=%s", v->knob, v->text[i]);
        fprintf(f, " %22.22s", h);
    }
    fputc('\n', f);
    for (guint s = 0; s < r0->stats->len; s++) {
        const PrismValidateStat *st0 = g_ptr_array_index(r0->stats, s);
        for (int k = 0; k < PRISM_VM_COUNT; k++) {
            if (st0->n[k] == 0)
                continue;
            fprintf(f, "%-31s %-9s %-12s", st0->source, prism_validate_kind_name(st0->kind),
                    names[k]);
            for (size_t i = 0; i < v->n; i++) {
                const PrismValidateStat *st = find_stat(reps[i], st0->source, st0->kind);
                const int n = st ? st->n[k] : 0;
                g_autofree char *c = n == 0
                                         ? g_strdup("-")
                                         : g_strdup_printf("%.1f%% (%+.1f%%) [%d]", st->sum[k] / n,
                                                           st->signed_sum[k] / n, n);
                fprintf(f, " %22s", c);
            }
            fputc('\n', f);
        }
    }
    for (guint q = 0; q < osrc->len; q++) {
        const char *src = g_ptr_array_index(osrc, q);
        fprintf(f, "%-31s %-9s %-12s", src ? src : "all", "both", "same order");
        for (size_t i = 0; i < v->n; i++) {
            const PrismValidateOrder *e = find_order(ords[i], src);
            g_autofree char *c =
                e == NULL || e->pairs == 0
                    ? g_strdup("-")
                    : g_strdup_printf("%.1f%% of %d", 100.0 * e->same / e->pairs, e->pairs);
            fprintf(f, " %22s", c);
        }
        fputc('\n', f);
    }
    fprintf(f, "%-54s", "OOM rows flagged");
    for (size_t i = 0; i < v->n; i++) {
        g_autofree char *c = g_strdup_printf("%d of %d", reps[i]->n_oom_flagged, reps[i]->n_oom);
        fprintf(f, " %22s", c);
    }
    fputc('\n', f);
}

static gboolean render_vary(FILE *f, const Vary *v, PrismValidateReport *const *reps, gboolean json)
{
    if (f == NULL)
        return TRUE;
    GPtrArray *ords[VARY_MAX] = {NULL};
    for (size_t i = 0; i < v->n; i++)
        ords[i] = prism_validate_order(reps[i], PRISM_VALIDATE_ORDER_TIE);
    g_autoptr(GPtrArray) osrc = vary_order_sources(ords, v->n);
    if (json)
        vary_json(f, v, reps, ords, osrc);
    else
        vary_text(f, v, reps, ords, osrc);
    for (size_t i = 0; i < v->n; i++)
        g_ptr_array_unref(ords[i]);
    return TRUE;
}

/* The shipped CSVs (every measured*.csv of the first validation folder holding
 * measured.csv, and the same names elsewhere; prism_validation_dirs()), in this order;
 * with @p first only measured.csv (--explain and --vary read one CSV). FALSE (exit
 * status 2) when none is found. */
static gboolean shipped_csvs(GPtrArray *paths, gboolean first, GError **error)
{
    static const char *const names[] = {"measured.csv", "measured_modern.csv",
                                        "measured_playbook.csv", "measured_playbook_failed.csv"};
    for (size_t i = 0; i < (first ? 1 : G_N_ELEMENTS(names)); i++) {
        char *p = prism_validation_data_file(names[i]);
        if (p != NULL)
            g_ptr_array_add(paths, p);
    }
    if (paths->len > 0)
        return TRUE;
    g_auto(GStrv) dirs = prism_validation_dirs();
    g_autofree char *list = g_strjoinv(", ", dirs);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                "no shipped validation CSV found (searched: %s; give a CSV or set "
                "PRISM_VALIDATION_DIR)",
                *list ? list : "no validation folder exists");
    return FALSE;
}

/* --from FILE: one run the user measured, described by its framework configuration. */
typedef struct {
    char *from;
    double step, mem; /* NAN = not given */
    char *mem_kind;
} FromRun;

/* A measured figure: finite and > 0, else the option, its value and what is allowed. */
static gboolean measured_ok(const char *opt, double v, GError **error)
{
    if (isnan(v) || (isfinite(v) && v > 0))
        return TRUE;
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "%s %g: out of range (allowed: a number > 0)", opt, v);
    return FALSE;
}

static void from_text(FILE *f, const char *note, const PrismValidateRow *r)
{
    fprintf(f, "prism validate: %s, %s under %s (%s), %s on %u x %s\n", r->source, r->model,
            r->framework ? r->framework : "no profile", r->framework_from, r->dtype, r->devices,
            r->cluster);
    fputs(note, f);
    fprintf(f, "strategy: %s\n", r->strategy);
    static const char *const names[] = {"peak memory GiB", "step time s", "TFLOP/s per GPU", "MFU"};
    fprintf(f, "%-16s %12s %12s %8s\n", "", "predicted", "measured", "error");
    for (int k = 0; k < PRISM_VM_COUNT; k++) {
        const Cell c = cell_text(r, k, TRUE);
        fprintf(f, "%-16s %12s %12s %8s\n", names[k], c.pred, c.meas, *c.err ? c.err : "-");
    }
    fprintf(f, "(signed: + = predicted higher; peak memory: the %s figure)\n",
            prism_mem_counts_name(r->mem_counts));
    if (!isnan(r->step_lo)) {
        fprintf(f,
                "step-time interval %.4g .. %.4g s (every ranged knob at its optimistic and "
                "pessimistic published end; not widened)",
                r->step_lo, r->step_hi);
        if (!isnan(r->meas[PRISM_VM_STEP]))
            fprintf(f, ": the measured %.4g s is %s", r->meas[PRISM_VM_STEP],
                    r->meas[PRISM_VM_STEP] < r->step_lo   ? "below it (faster than the fast end)"
                    : r->meas[PRISM_VM_STEP] > r->step_hi ? "above it (slower than the slow end)"
                                                          : "inside");
        fputc('\n', f);
    }
    if (!r->fits)
        fprintf(f, "note: prism predicts this strategy does not fit the device memory\n");
    if (r->unsupported != NULL)
        fprintf(f, "note: stock %s would not run it: %s\n", r->framework, r->unsupported);
}

static void from_json(FILE *f, const char *path, const PrismRunConfig *cfg,
                      const PrismValidateRow *r)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "from");
    json_builder_begin_object(b);
    prism_app_json_string(b, "file", path);
    prism_app_json_string(b, "framework", prism_fw_target_name(cfg->target));
    json_builder_set_member_name(b, "ignored");
    json_builder_begin_array(b);
    for (guint i = 0; i < cfg->ignored->len; i++)
        json_builder_add_string_value(b, cfg->ignored->pdata[i]);
    json_builder_end_array(b);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "row");
    json_row(b, r);
    json_builder_set_member_name(b, "step_interval");
    json_builder_begin_object(b);
    json_num(b, "lo", r->step_lo);
    json_num(b, "hi", r->step_hi);
    json_builder_set_member_name(b, "measured_inside");
    if (isnan(r->step_lo) || isnan(r->meas[PRISM_VM_STEP]))
        json_builder_add_null_value(b);
    else
        json_builder_add_boolean_value(b, r->step_lo <= r->meas[PRISM_VM_STEP] &&
                                              r->meas[PRISM_VM_STEP] <= r->step_hi);
    json_builder_end_object(b);
    json_builder_end_object(b);
    prism_app_print_json(f, b);
}

/* validate --from FILE: the run's configuration priced as a row that states every dim,
 * under its framework's profile (--framework, else the one the file's framework runs), next
 * to the step time and memory the user measured. Collective like every command. */
static gboolean validate_from(PrismComm *comm, PrismCommonOptions *o, const FromRun *fr,
                              GError **error)
{
    PrismValidateRun run = {.step_s = fr->step, .mem_gib = fr->mem, .mem_kind = -1, .mem_rank = -1};
    if (!measured_ok("--measured-step", fr->step, error) ||
        !measured_ok("--measured-mem", fr->mem, error))
        return FALSE;
    if (isnan(fr->step) && isnan(fr->mem)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "--from %s: give what the run measured: --measured-step SECONDS and/or "
                    "--measured-mem GIB",
                    fr->from);
        return FALSE;
    }
    if (fr->mem_kind != NULL) {
        PrismMemCounts mk;
        if (!prism_mem_counts_parse(fr->mem_kind, &mk, error)) {
            g_prefix_error(error, "--mem-kind: ");
            return FALSE;
        }
        if (isnan(fr->mem)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--mem-kind %s says what --measured-mem counts; give it too", fr->mem_kind);
            return FALSE;
        }
        run.mem_kind = (int)mk;
    }
    if (o->model == NULL || o->cluster == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "--from %s: give the model and the cluster the run trained (--model, "
                    "--cluster)",
                    fr->from);
        return FALSE;
    }
    PrismInputs in = {0};
    g_autoptr(PrismRunConfig) cfg = NULL;
    g_autoptr(PrismCostModel) cm = NULL;
    g_autoptr(PrismFramework) target = NULL;
    g_autoptr(PrismLayout) layout = NULL; /* before the first goto: every path frees them */
    g_autoptr(PrismValidateRow) r = NULL;
    gboolean ok = FALSE;
    if (!prism_app_load_inputs(comm, o, &in, error))
        goto out;
    if (in.n_devices != 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--devices: validate --from takes one device count, got %zu", in.n_devices);
        goto out;
    }
    if ((cfg = prism_app_from(fr->from, &in, error)) == NULL)
        goto out;
    /* the profile of the framework the file configures, unless --framework names one */
    const char *profile = prism_fw_target_profile(cfg->target);
    run.framework_from = "--framework";
    if (in.framework == NULL && profile != NULL) {
        if ((target = prism_app_framework_resolve(profile, error)) == NULL)
            goto out;
        const PrismOptimizer opt = in.training.optimizer;
        prism_knobs_default(&in.knobs);
        prism_framework_apply(target, in.cluster->family, &in.knobs, &in.training);
        if (o->optimizer != NULL)
            in.training.optimizer = opt;
        prism_knob_overrides_apply(&in.user_knobs, &in.knobs);
        run.framework_from = "the file's framework";
    } else if (in.framework == NULL) {
        run.framework_from = "none (no profile for this framework)";
    }
    const PrismFramework *fw = in.framework != NULL ? in.framework : target;
    run.source = fr->from;
    if ((cm = prism_cost_model_new(in.model, in.cluster, &in.training, &in.knobs, error)) == NULL)
        goto out;
    /* the file's own split of the layers (uneven stages, a Megatron layout), as stated */
    layout = prism_app_from_layout(cfg, in.model);
    if ((r = prism_validate_strategy(cm, &cfg->strategy, layout, fw, &run, error)) == NULL)
        goto out;
    FILE *f = prism_app_out(comm);
    if (f != NULL && o->json)
        from_json(f, fr->from, cfg, r);
    else if (f != NULL) {
        g_autofree char *note = prism_app_from_note(fr->from, cfg);
        from_text(f, note, r);
    }
    ok = TRUE;
out:
    prism_inputs_clear(&in);
    return ok;
}

gboolean prism_cmd_validate(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_KNOBS | PRISM_OPT_FRAMEWORK | PRISM_OPT_JSON |
                                     PRISM_OPT_MODEL | PRISM_OPT_CLUSTER | PRISM_OPT_TRAINING};
    int explain_line = 0;
    char *vary_arg = NULL;
    FromRun fr = {.step = NAN, .mem = NAN};
    const GOptionEntry entries[] = {
        {"from", 0, 0, G_OPTION_ARG_FILENAME, &fr.from,
         "instead of a CSV: one run you measured, as its framework configuration (the files "
         "prism explain --from reads), priced under --model and --cluster and compared with "
         "--measured-step and --measured-mem",
         "FILE"},
        {"measured-step", 0, 0, G_OPTION_ARG_DOUBLE, &fr.step,
         "with --from: the step time the run measured (one optimizer step)", "SECONDS"},
        {"measured-mem", 0, 0, G_OPTION_ARG_DOUBLE, &fr.mem,
         "with --from: the peak memory the run logged, GiB (2^30 bytes)", "GIB"},
        {"mem-kind", 0, 0, G_OPTION_ARG_STRING, &fr.mem_kind,
         "with --measured-mem: what it counts, allocated, reserved or device (nvidia-smi); "
         "default: what the framework's profile says its log shows",
         "KIND"},
        {"explain", 0, 0, G_OPTION_ARG_INT, &explain_line,
         "only the data row on CSV line LINE (the header is line 1): its comparison and every "
         "cost term of its strategy, as prism explain prints them",
         "LINE"},
        {"vary", 0, 0, G_OPTION_ARG_STRING, &vary_arg,
         "validate once per value of one knob (given over every row's profile) and print the "
         "per-source errors side by side",
         "NAME=V1,V2,..."},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[CSV...] - compare predictions with published measurements");
    g_option_context_set_description(
        ctx,
        "Without a CSV every shipped one is read (measured.csv, measured_modern.csv,\n"
        "measured_playbook.csv and measured_playbook_failed.csv of the validation folders: "
        "$PRISM_VALIDATION_DIR,\nnext to the binary, the source tree's "
        "cost/validation/); --explain and --vary read one CSV\n(measured.csv by default). "
        "Several CSVs are reported one after the other, then every source together.\nEach row runs "
        "under a framework profile: its `framework` column, else "
        "--framework, else its source's\nprofile (cost/frameworks/sources.ini). A dim the "
        "row leaves unstated takes the profile's default; where\nthe profile has none the "
        "row is PLANNED: the known dims are fixed and the search picks the rest\n(reported "
        "apart: achievable, not directly predicted; the whole layout when tp, pp and dp are "
        "all empty).\nColumns needed: source_id, model_name, gpu_type, num_gpus; a row "
        "without layers/hidden/heads takes the\nmodel its model_name names, as --model reads it "
        "(a relative config.json path is the CSV folder's);\ngpu_type may be written as "
        "nvidia-smi does (\"NVIDIA H100 80GB HBM3\"); sources.ini may give a source's\n"
        "global_batch and seq_len. Rows that cannot be modelled are listed as skipped with "
        "the reason; none is dropped.\nAn optional `knobs` column (NAME=VALUE;...) sets "
        "knobs for\nits row over the profile's; knobs set with "
        "--set/--knobs override both. The report also gives the order within\neach "
        "workload (rows of a source with the same model, device, device count, batch and "
        "sequence):\nthe share of pairs prism puts in the measured order, and the groups "
        "whose fastest run it finds; and what users\nfeel: the regret of choosing by prism's "
        "prediction among runs that differ only in strategy, and the\nfeasibility verdicts "
        "both ways (measured failures flagged, measured runs predicted to fit).\nStep-time "
        "intervals: the share of measured steps inside the interval of the knob ranges alone, "
        "and inside\nthe interval plan shows when the row's own source is left out of the track "
        "record (held out).\nOptional "
        "columns: framework, tied_embeddings (0|1), activation (gelu|swiglu), schedule (a "
        "pipeline\nschedule), mem_kind (allocated|reserved|device) and mem_rank (max or the "
        "global rank measured).");
    g_option_context_add_main_entries(ctx, entries, NULL);
    prism_app_add_common_options(ctx, &o);
    gboolean ok = FALSE;
    /* before the first goto: cleaned at every exit */
    g_autoptr(GPtrArray) reps =
        g_ptr_array_new_with_free_func((GDestroyNotify)prism_validate_report_free);
    g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
    const char *path = NULL;
    g_autoptr(PrismFramework) fw = NULL;
    PrismKnobOverrides k;
    Vary vary = {0};
    PrismValidateReport *vreps[VARY_MAX] = {NULL};
    if (!prism_app_parse(ctx, &argc, &argv, error))
        goto out;
    if (fr.from != NULL) {
        if (argc > 1 || explain_line != 0 || vary_arg != NULL) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                        "--from %s: one run instead of a CSV (allowed without a CSV, --explain "
                        "and --vary)",
                        fr.from);
            goto out;
        }
        ok = validate_from(comm, &o, &fr, error);
        goto out;
    }
    {
        /* the options that describe a --from run mean nothing to a CSV's rows */
        const char *given = !isnan(fr.step)                              ? "--measured-step"
                            : !isnan(fr.mem)                             ? "--measured-mem"
                            : fr.mem_kind != NULL                        ? "--mem-kind"
                            : o.model != NULL                            ? "--model"
                            : o.cluster != NULL                          ? "--cluster"
                            : o.devices != NULL                          ? "--devices"
                            : o.gbs != PRISM_OPT_UNSET_INT               ? "--gbs"
                            : o.seq != PRISM_OPT_UNSET_INT               ? "--seq"
                            : o.dtype != NULL                            ? "--dtype"
                            : o.optimizer != NULL                        ? "--optimizer"
                            : o.mem_budget_gib != PRISM_OPT_UNSET_DOUBLE ? "--mem-budget"
                                                                         : NULL;
        if (given != NULL) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                        "%s describes the run of --from FILE; a CSV's rows state their own "
                        "(allowed: with --from)",
                        given);
            goto out;
        }
    }
    for (int i = 1; i < argc; i++)
        g_ptr_array_add(paths, g_strdup(argv[i]));
    if (argc == 1 && !shipped_csvs(paths, explain_line > 0 || vary_arg != NULL, error))
        goto out;
    if (paths->len > 1 && (explain_line > 0 || vary_arg != NULL)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--%s takes one CSV, got %u ('%s', '%s', ...)",
                    explain_line > 0 ? "explain" : "vary", paths->len,
                    (const char *)g_ptr_array_index(paths, 0),
                    (const char *)g_ptr_array_index(paths, 1));
        goto out;
    }
    path = g_ptr_array_index(paths, 0);
    if (!prism_app_knob_overrides(&o, &k, error))
        goto out;
    if (o.framework != NULL && (fw = prism_app_framework_resolve(o.framework, error)) == NULL) {
        g_prefix_error(error, "--framework: ");
        goto out;
    }
    if (explain_line < 0 || explain_line == 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--explain %d: give the CSV line of a data row (2 or more; the header is "
                    "line 1)",
                    explain_line);
        goto out;
    }
    if (vary_arg != NULL) {
        if (explain_line > 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                        "--vary and --explain: give one of them");
            goto out;
        }
        if (!vary_parse(vary_arg, &vary, error))
            goto out;
        for (size_t i = 0; i < vary.n; i++) {
            PrismKnobOverrides ki = k; /* the user's knobs, and this value over them */
            ki.knobs.v[vary.id] = vary.values[i];
            ki.set[vary.id] = TRUE;
            const PrismValidateOptions vi = {.user = &ki, .framework = fw};
            if ((vreps[i] = prism_validate_run(comm, path, &vi, error)) == NULL)
                goto out;
        }
        ok = render_vary(prism_app_out(comm), &vary, vreps, o.json);
        goto out;
    }
    const PrismValidateOptions vo = {.user = &k, .framework = fw, .explain_line = explain_line};
    for (guint i = 0; i < paths->len; i++) {
        PrismValidateReport *rep =
            prism_validate_run(comm, g_ptr_array_index(paths, i), &vo, error);
        if (rep == NULL)
            goto out;
        g_ptr_array_add(reps, rep);
    }
    FILE *f = prism_app_out(comm);
    if (explain_line > 0) {
        /* every rank decides alike (the report is the same on every rank) */
        ok = render_explain(f, g_ptr_array_index(reps, 0), o.json, error);
        goto out;
    }
    PrismValidateReport *const *rv = (PrismValidateReport *const *)reps->pdata;
    prism_track_holdout((PrismValidateReport *const *)reps->pdata, reps->len);
    if (f != NULL && o.json)
        render_json(f, rv, reps->len);
    else if (f != NULL) {
        for (guint i = 0; i < reps->len; i++) {
            g_autofree char *text = render_text(rv[i]);
            fprintf(f, "%s%s", i ? "\n" : "", text);
        }
        if (reps->len > 1) {
            g_autoptr(GString) t = g_string_new(NULL);
            g_autoptr(GPtrArray) feel = feel_all(rv, reps->len);
            feel_text(t, feel, "every CSV together: what users feel per source");
            fputs(t->str, f);
        }
    }
    ok = TRUE;
out:
    for (size_t i = 0; i < VARY_MAX; i++)
        if (vreps[i] != NULL)
            prism_validate_report_free(vreps[i]);
    vary_clear(&vary);
    g_free(vary_arg);
    g_free(fr.from);
    g_free(fr.mem_kind);
    prism_common_options_clear(&o);
    return ok;
}
