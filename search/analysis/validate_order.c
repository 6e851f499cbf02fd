// SPDX-License-Identifier: MIT
/*
 * validate_order.c - the order statistic of `prism validate` (validate.h): within groups of
 * published runs that share the workload and the hardware, does prism put them in the
 * measured order? A planner is used to choose between strategies, so this is the number
 * that says whether its comparisons can be trusted where its absolute times cannot (the
 * accuracy tables of README.md). And what a user choosing by prism would feel: the regret
 * of picking by prism's prediction among runs that differ only in strategy, and whether
 * its memory verdict matches what ran and what failed (PrismValidateRegret). Pure: it
 * reads a report and changes nothing.
 */
#include <prism/validate.h>

#include <math.h>
#include <string.h>

#include <prism/ranges.h>
#include <prism/training.h>

/* The speeds tried for a pair or a group, in this order. */
static const int speed_metrics[] = {PRISM_VM_STEP, PRISM_VM_TFLOPS, PRISM_VM_MFU};

static gboolean has_speed(const PrismValidateRow *r, int k)
{
    return isfinite(r->pred[k]) && isfinite(r->meas[k]) && r->pred[k] > 0.0 && r->meas[k] > 0.0;
}

/* > 0 when @p a is faster than @p b in metric @p k (values of that metric). */
static double ahead(int k, double a, double b)
{
    return k == PRISM_VM_STEP ? b - a : a - b;
}

static gboolean counted(const PrismValidateRow *r)
{
    return r->kind != PRISM_VALIDATE_SKIPPED && !r->oom;
}

static gboolean same_group(const PrismValidateRow *a, const PrismValidateRow *b)
{
    return strcmp(a->source, b->source) == 0 && g_strcmp0(a->model, b->model) == 0 &&
           g_strcmp0(a->cluster, b->cluster) == 0 && a->devices == b->devices && a->gbs == b->gbs &&
           a->seq == b->seq;
}

static void order_free(gpointer p)
{
    PrismValidateOrder *o = p;
    g_free(o->source);
    g_free(o);
}

/* The entry of @p source in @p out, appended when new. */
static PrismValidateOrder *entry(GPtrArray *out, const char *source)
{
    for (guint i = 0; i < out->len; i++) {
        PrismValidateOrder *o = g_ptr_array_index(out, i);
        if (strcmp(o->source, source) == 0)
            return o;
    }
    PrismValidateOrder *o = g_new0(PrismValidateOrder, 1);
    o->source = g_strdup(source);
    g_ptr_array_add(out, o);
    return o;
}

/* The first speed metric (speed_metrics' order) both @p x and @p y give; -1 when none. */
static int pair_metric(const PrismValidateRow *x, const PrismValidateRow *y)
{
    for (size_t j = 0; j < G_N_ELEMENTS(speed_metrics); j++)
        if (has_speed(x, speed_metrics[j]) && has_speed(y, speed_metrics[j]))
            return speed_metrics[j];
    return -1;
}

/* The pairs of one group (@p m rows of @p rows at @p idx); each counted one is appended to
 * @p list when it is not NULL. */
static void group_pairs(const PrismValidateRow *const *rows, const guint *idx, guint m, double tie,
                        PrismValidateOrder *o, GArray *list)
{
    gboolean any = FALSE;
    for (guint a = 0; a < m; a++) {
        for (guint b = a + 1; b < m; b++) {
            const PrismValidateRow *x = rows[idx[a]], *y = rows[idx[b]];
            const int k = pair_metric(x, y);
            if (k < 0)
                continue;
            const double big = fmax(x->meas[k], y->meas[k]);
            if (fabs(x->meas[k] - y->meas[k]) < tie * big) {
                o->ties++;
                continue;
            }
            const double mf = ahead(k, x->meas[k], y->meas[k]);
            const double pf = ahead(k, x->pred[k], y->pred[k]);
            const double same = pf == 0.0 ? 0.5 : (pf > 0.0) == (mf > 0.0) ? 1.0 : 0.0;
            o->same += same;
            o->pairs++;
            if (list != NULL) {
                const PrismValidateOrderPair pr = {.a = x, .b = y, .metric = k, .same = same};
                g_array_append_val(list, pr);
            }
            any = TRUE;
        }
    }
    o->groups += any ? 1 : 0;
}

/* The fastest row of one group: measured against predicted, in the metric most of its rows
 * have (ties: step time, then TFLOP/s, then MFU; a group can mix rows that publish only
 * TFLOP/s with rows that publish only MFU), over the rows that have it. */
/* The speed metric most of a group's rows (@p m at @p idx) give (ties: step time, then
 * TFLOP/s, then MFU), and in *@p most how many give it; -1 when none does. */
static int group_metric(const PrismValidateRow *const *rows, const guint *idx, guint m, guint *most)
{
    int k = -1;
    *most = 0;
    for (size_t j = 0; j < G_N_ELEMENTS(speed_metrics); j++) {
        guint c = 0;
        for (guint a = 0; a < m; a++)
            c += has_speed(rows[idx[a]], speed_metrics[j]);
        if (c > *most) {
            *most = c;
            k = speed_metrics[j];
        }
    }
    return k;
}

static void group_fastest(const PrismValidateRow *const *rows, const guint *idx, guint m,
                          double tie, PrismValidateOrder *o)
{
    guint most = 0;
    const int k = group_metric(rows, idx, m, &most);
    if (most < 2)
        return;
    guint best = m;
    for (guint a = 0; a < m; a++)
        if (has_speed(rows[idx[a]], k) &&
            (best == m || ahead(k, rows[idx[a]]->meas[k], rows[idx[best]]->meas[k]) > 0.0))
            best = a;
    const double mb = rows[idx[best]]->meas[k];
    for (guint a = 0; a < m; a++)
        if (a != best && has_speed(rows[idx[a]], k) &&
            fabs(rows[idx[a]]->meas[k] - mb) < tie * fmax(mb, rows[idx[a]]->meas[k]))
            return; /* no clear measured fastest */
    o->fastest_groups++;
    const double pb = rows[idx[best]]->pred[k];
    for (guint a = 0; a < m; a++)
        if (a != best && has_speed(rows[idx[a]], k) && ahead(k, pb, rows[idx[a]]->pred[k]) <= 0.0)
            return;
    o->fastest_agree++;
}

/* The groups of @p rep, counted into @p out (per source, then all) and, when @p list is
 * not NULL, their pairs appended to it. */
static void order_run(const PrismValidateReport *rep, double tie, GPtrArray *out, GArray *list)
{
    const guint n = rep->rows->len;
    const PrismValidateRow *const *rows = (const PrismValidateRow *const *)rep->rows->pdata;
    g_autofree gboolean *done = g_new0(gboolean, n);
    g_autofree guint *idx = g_new(guint, n ? n : 1);
    for (guint i = 0; i < n; i++) {
        if (done[i] || !counted(rows[i]))
            continue;
        guint m = 0;
        for (guint j = i; j < n; j++) {
            if (!done[j] && counted(rows[j]) && same_group(rows[i], rows[j])) {
                done[j] = TRUE;
                idx[m++] = j;
            }
        }
        PrismValidateOrder probe = {0};
        group_pairs(rows, idx, m, tie, &probe, list);
        group_fastest(rows, idx, m, tie, &probe);
        if (probe.pairs + probe.ties + probe.fastest_groups == 0)
            continue;
        prism_validate_order_add(entry(out, rows[i]->source), &probe);
    }
    if (out->len >= 2) {
        PrismValidateOrder *all = g_new0(PrismValidateOrder, 1);
        for (guint i = 0; i < out->len; i++)
            prism_validate_order_add(all, g_ptr_array_index(out, i));
        g_ptr_array_add(out, all);
    }
}

void prism_validate_order_add(PrismValidateOrder *to, const PrismValidateOrder *from)
{
    to->groups += from->groups;
    to->pairs += from->pairs;
    to->ties += from->ties;
    to->same += from->same;
    to->fastest_groups += from->fastest_groups;
    to->fastest_agree += from->fastest_agree;
}

GPtrArray *prism_validate_order(const PrismValidateReport *rep, double tie)
{
    g_return_val_if_fail(rep != NULL, NULL);
    GPtrArray *out = g_ptr_array_new_with_free_func(order_free);
    order_run(rep, tie, out, NULL);
    return out;
}

GArray *prism_validate_order_pairs(const PrismValidateReport *rep, double tie)
{
    g_return_val_if_fail(rep != NULL, NULL);
    GArray *list = g_array_new(FALSE, FALSE, sizeof(PrismValidateOrderPair));
    g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(order_free);
    order_run(rep, tie, out, list);
    return list;
}

/* Rows that take part in the regret: predicted (their strategy is the measured one), not a
 * measured failure. */
static gboolean candidate(const PrismValidateRow *r)
{
    return r->kind == PRISM_VALIDATE_PREDICTED && !r->oom;
}

/* Rows that differ only in strategy: same source, model, cluster, device count, global
 * batch, sequence, dtype and framework. */
static gboolean same_workload(const PrismValidateRow *a, const PrismValidateRow *b)
{
    return strcmp(a->source, b->source) == 0 && g_strcmp0(a->model, b->model) == 0 &&
           g_strcmp0(a->cluster, b->cluster) == 0 && a->devices == b->devices && a->gbs == b->gbs &&
           a->seq == b->seq && g_strcmp0(a->dtype, b->dtype) == 0 &&
           g_strcmp0(a->framework, b->framework) == 0;
}

/* How much slower run @p pick is than run @p best in metric @p k, in % of the time
 * (step time: lower is faster; TFLOP/s and MFU: higher is faster, at a fixed workload
 * the time is inversely proportional to them). */
static double slower_pct(int k, double pick, double best)
{
    return 100.0 * (k == PRISM_VM_STEP ? pick / best - 1.0 : best / pick - 1.0);
}

/* One group (@p m rows at @p idx) of the regret: in the metric most of its rows give,
 * prism's pick (the best prediction, the first in file order on
 * ties) and the measured fastest among the rows with that metric. */
/* A row's step interval as plan reads it: the point, the corners and the ranges' ends, or
 * with @p held the ends widened by the held-out record (held_lo, held_hi) where set. */
static PrismInterval interval_of(const PrismValidateRow *r, gboolean held)
{
    const gboolean w = held && !isnan(r->held_lo) && !isnan(r->held_hi);
    return (PrismInterval){.step = r->pred[PRISM_VM_STEP],
                           .step_lo = w ? r->held_lo : r->step_lo,
                           .step_hi = w ? r->held_hi : r->step_hi,
                           .corner = {r->step_fast, r->step_slow}};
}

/* `plan --pick simplest` on a group in its speed metric @p k (the rows that give it): the
 * simplest run (the default order of moving parts) of those whose predicted step is
 * equivalent to the predicted fastest's @p pick
 * (prism_interval_equivalent: the intervals overlap, the ranges' or with @p held the held-out
 * ones, and the ratio at the same corners holds 1 within @p tolerance), or NULL when a row of the
 * group lacks corners or a parseable strategy (the group is left out). */
static const PrismValidateRow *simplest_choice(const PrismValidateRow *const *rows,
                                               const guint *idx, guint m, int k,
                                               const PrismValidateRow *pick, double tolerance,
                                               gboolean held)
{
    PrismSimplicity order;
    (void)prism_simplicity_parse(NULL, &order, NULL);
    const PrismValidateRow *chosen = pick;
    PrismStrategy cs = {0};
    for (guint pass = 0; pass < 2; pass++)
        for (guint a = 0; a < m; a++) {
            const PrismValidateRow *r = pass == 0 ? pick : rows[idx[a]];
            if (!has_speed(r, k))
                continue; /* as group_regret: the rows that give the group's metric */
            if (!(r->pred[PRISM_VM_STEP] > 0) || isnan(r->step_fast) || r->strategy == NULL)
                return NULL;
            PrismTraining t;
            prism_training_default(&t);
            t.gbs = r->gbs;
            t.seq = r->seq;
            g_auto(GStrv) w = g_strsplit(r->strategy, " ", 2);
            PrismStrategy s;
            if (!prism_strategy_parse(w[0], r->devices, &t, &s, NULL))
                return NULL;
            if (pass == 0) {
                cs = s;
                break;
            }
            const PrismInterval pa = interval_of(pick, held), pb = interval_of(r, held);
            if (r != pick && prism_interval_equivalent(&pa, &pb, tolerance) &&
                prism_simplicity_cmp(&order, &s, &cs) < 0) {
                chosen = r;
                cs = s;
            }
        }
    return chosen;
}

/* The regret of `plan --pick simplest` against the measured fastest @p best: with no
 * tolerance, and with the tolerance plan takes from the track record without the group's
 * source (held_tol, prism_track_holdout; the group's rows share source, family and
 * framework, so the pick's is theirs) where it was set. */
static void simplest_regret(const PrismValidateRow *const *rows, const guint *idx, guint m, int k,
                            const PrismValidateRow *pick, const PrismValidateRow *best,
                            PrismValidateRegret *o)
{
    const PrismValidateRow *chosen = simplest_choice(rows, idx, m, k, pick, 0.0, FALSE);
    if (chosen == NULL)
        return;
    double reg = slower_pct(k, chosen->meas[k], best->meas[k]);
    o->simplest_groups++;
    o->simplest_sum += reg;
    o->simplest_worst = MAX(o->simplest_worst, reg);
    if (isnan(pick->held_tol))
        return;
    chosen = simplest_choice(rows, idx, m, k, pick, pick->held_tol, TRUE);
    reg = slower_pct(k, chosen->meas[k], best->meas[k]);
    o->simplest_held_groups++;
    o->simplest_held_sum += reg;
    o->simplest_held_worst = MAX(o->simplest_held_worst, reg);
}

static void group_regret(const PrismValidateRow *const *rows, const guint *idx, guint m,
                         PrismValidateRegret *o)
{
    guint most = 0;
    const int k = group_metric(rows, idx, m, &most);
    if (most < 2)
        return;
    const PrismValidateRow *pick = NULL, *best = NULL;
    for (guint a = 0; a < m; a++) {
        const PrismValidateRow *r = rows[idx[a]];
        if (!has_speed(r, k))
            continue;
        if (pick == NULL || ahead(k, r->pred[k], pick->pred[k]) > 0.0)
            pick = r;
        if (best == NULL || ahead(k, r->meas[k], best->meas[k]) > 0.0)
            best = r;
    }
    const double reg = slower_pct(k, pick->meas[k], best->meas[k]);
    simplest_regret(rows, idx, m, k, pick, best, o);
    o->groups++;
    o->regret_sum += reg;
    o->regret_worst = MAX(o->regret_worst, reg);
    o->picks_fastest += reg == 0.0;
}

static void regret_free(gpointer p)
{
    PrismValidateRegret *o = p;
    g_free(o->source);
    g_free(o);
}

PrismValidateRegret *prism_validate_regret_entry(GPtrArray *list, const char *source)
{
    for (guint i = 0; i < list->len; i++) {
        PrismValidateRegret *o = g_ptr_array_index(list, i);
        if (g_strcmp0(o->source, source) == 0)
            return o;
    }
    PrismValidateRegret *o = g_new0(PrismValidateRegret, 1);
    o->source = g_strdup(source);
    g_ptr_array_add(list, o);
    return o;
}

GPtrArray *prism_validate_regret_list_new(void)
{
    return g_ptr_array_new_with_free_func(regret_free);
}

void prism_validate_regret_add(PrismValidateRegret *to, const PrismValidateRegret *from)
{
    to->groups += from->groups;
    to->picks_fastest += from->picks_fastest;
    to->regret_sum += from->regret_sum;
    to->regret_worst = MAX(to->regret_worst, from->regret_worst);
    to->oom_rows += from->oom_rows;
    to->oom_flagged += from->oom_flagged;
    to->ok_rows += from->ok_rows;
    to->ok_feasible += from->ok_feasible;
    to->simplest_groups += from->simplest_groups;
    to->simplest_sum += from->simplest_sum;
    to->simplest_worst = MAX(to->simplest_worst, from->simplest_worst);
    to->simplest_held_groups += from->simplest_held_groups;
    to->simplest_held_sum += from->simplest_held_sum;
    to->simplest_held_worst = MAX(to->simplest_held_worst, from->simplest_held_worst);
}

void prism_validate_regret_collect(const PrismValidateReport *rep, GPtrArray *list)
{
    g_return_if_fail(rep != NULL && list != NULL);
    const guint n = rep->rows->len;
    const PrismValidateRow *const *rows = (const PrismValidateRow *const *)rep->rows->pdata;
    /* feasibility, both ways, over the modelled rows */
    for (guint i = 0; i < n; i++) {
        const PrismValidateRow *r = rows[i];
        if (r->kind == PRISM_VALIDATE_SKIPPED)
            continue;
        PrismValidateRegret *o = prism_validate_regret_entry(list, r->source);
        if (r->oom) {
            o->oom_rows++;
            o->oom_flagged += !r->fits;
        } else {
            o->ok_rows++;
            o->ok_feasible += r->fits;
        }
    }
    g_autofree gboolean *done = g_new0(gboolean, n);
    g_autofree guint *idx = g_new(guint, n ? n : 1);
    for (guint i = 0; i < n; i++) {
        if (done[i] || !candidate(rows[i]))
            continue;
        guint m = 0;
        for (guint j = i; j < n; j++) {
            if (!done[j] && candidate(rows[j]) && same_workload(rows[i], rows[j])) {
                done[j] = TRUE;
                idx[m++] = j;
            }
        }
        group_regret(rows, idx, m, prism_validate_regret_entry(list, rows[i]->source));
    }
}

GPtrArray *prism_validate_regret(const PrismValidateReport *rep)
{
    GPtrArray *list = prism_validate_regret_list_new();
    prism_validate_regret_collect(rep, list);
    return list;
}

/* The strategy of a row (the first word of its strategy text; NULL: none) differs from
 * another's. */
static gboolean other_strategy(const PrismValidateRow *a, const PrismValidateRow *b)
{
    if (a->strategy == NULL || b->strategy == NULL)
        return FALSE;
    const size_t la = strcspn(a->strategy, " "), lb = strcspn(b->strategy, " ");
    return la != lb || strncmp(a->strategy, b->strategy, la) != 0;
}

/* ln of the time ratio of a run of value @p a to one of @p b in metric @p k: step time as it is,
 * TFLOP/s and MFU inverted (at one workload the time is inversely proportional to them). */
static double log_time_ratio(int k, double a, double b)
{
    return k == PRISM_VM_STEP ? log(a / b) : log(b / a);
}

void prism_validate_pair_errors(const PrismValidateReport *rep, PrismTrackPairs *acc)
{
    g_return_if_fail(rep != NULL && acc != NULL);
    const guint n = rep->rows->len;
    const PrismValidateRow *const *rows = (const PrismValidateRow *const *)rep->rows->pdata;
    for (guint i = 0; i < n; i++) {
        if (!candidate(rows[i]))
            continue;
        for (guint j = i + 1; j < n; j++) {
            const PrismValidateRow *x = rows[i], *y = rows[j];
            if (!candidate(y) || !same_workload(x, y) || !other_strategy(x, y))
                continue;
            const int k = pair_metric(x, y);
            if (k < 0)
                continue;
            const double d = 100.0 * (log_time_ratio(k, x->pred[k], y->pred[k]) -
                                      log_time_ratio(k, x->meas[k], y->meas[k]));
            acc->n++;
            acc->rms += d * d;
            acc->worst = MAX(acc->worst, fabs(d));
        }
    }
}
