// SPDX-License-Identifier: MIT
/*
 * validate_order.c - the order statistic of `prism validate` (validate.h): within groups of
 * published runs that share the workload and the hardware, does prism put them in the
 * measured order? A planner is used to choose between strategies, so this is the number
 * that says whether its comparisons can be trusted where its absolute times cannot (the
 * accuracy tables of README.md). Pure: it reads a report and changes nothing.
 */
#include <prism/validate.h>

#include <math.h>
#include <string.h>

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

/* The pairs of one group (@p m rows of @p rows at @p idx); each counted one is appended to
 * @p list when it is not NULL. */
static void group_pairs(const PrismValidateRow *const *rows, const guint *idx, guint m, double tie,
                        PrismValidateOrder *o, GArray *list)
{
    gboolean any = FALSE;
    for (guint a = 0; a < m; a++) {
        for (guint b = a + 1; b < m; b++) {
            const PrismValidateRow *x = rows[idx[a]], *y = rows[idx[b]];
            int k = -1;
            for (size_t j = 0; j < G_N_ELEMENTS(speed_metrics) && k < 0; j++)
                if (has_speed(x, speed_metrics[j]) && has_speed(y, speed_metrics[j]))
                    k = speed_metrics[j];
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
static void group_fastest(const PrismValidateRow *const *rows, const guint *idx, guint m,
                          double tie, PrismValidateOrder *o)
{
    int k = -1;
    guint most = 0;
    for (size_t j = 0; j < G_N_ELEMENTS(speed_metrics); j++) {
        guint c = 0;
        for (guint a = 0; a < m; a++)
            c += has_speed(rows[idx[a]], speed_metrics[j]);
        if (c > most) {
            most = c;
            k = speed_metrics[j];
        }
    }
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
