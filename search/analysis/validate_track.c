// SPDX-License-Identifier: MIT
/*
 * validate_track.c - the track record (validate.h): how the cost model did on the shipped
 * published runs of one device family under one framework profile. `prism plan` and
 * `prism explain` print it under their answer, so that a prediction is read with the
 * error the model has shown on comparable measured runs. It is a summary of `prism
 * validate` on every shipped CSV of cost/validation/ (found next to the binary or in the
 * source tree): the runs' errors and order, and the measured failures predicted infeasible,
 * filtered by device and profile; it changes no prediction.
 * Collective like prism_validate_run (its planned rows search on every rank).
 */
#include <prism/validate.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>

/* The shipped CSVs, in this order (each is read when found; `prism validate` without a CSV
 * reads the same). */
static const char *const track_files[] = {"measured.csv", "measured_modern.csv",
                                          "measured_playbook.csv", "measured_playbook_failed.csv"};

PrismTrackRecord *prism_track_record_new(const char *family, const char *framework)
{
    PrismTrackRecord *t = g_new0(PrismTrackRecord, 1);
    t->family = g_strdup(family);
    t->framework = g_strdup(framework);
    t->data = g_ptr_array_new_with_free_func(g_free);
    t->sources = g_ptr_array_new_with_free_func(g_free);
    return t;
}

void prism_track_record_free(PrismTrackRecord *t)
{
    if (t == NULL)
        return;
    g_free(t->family);
    g_free(t->framework);
    g_free(t->unavailable);
    g_free(t->knobs);
    g_ptr_array_unref(t->data);
    g_ptr_array_unref(t->sources);
    g_free(t);
}

static void add_error(PrismTrackStat *s, double signed_pct)
{
    s->n++;
    s->mean_signed += signed_pct;
    s->mean_abs += fabs(signed_pct);
    s->worst = MAX(s->worst, fabs(signed_pct));
    s->sd += signed_pct * signed_pct;
}

/* The speed error of a row in per cent: `prism validate`'s error of its time metric (the
 * step time when the run gives it, else TFLOP/s, else MFU), positive when the prediction
 * is faster than the measurement; NAN without one. */
static double speed_error(const PrismValidateRow *r)
{
    static const int order[] = {PRISM_VM_STEP, PRISM_VM_TFLOPS, PRISM_VM_MFU};
    for (size_t i = 0; i < G_N_ELEMENTS(order); i++) {
        const int k = order[i];
        if (isnan(r->err[k]))
            continue;
        const gboolean faster =
            k == PRISM_VM_STEP ? r->pred[k] < r->meas[k] : r->pred[k] > r->meas[k];
        return faster ? r->err[k] : -r->err[k];
    }
    return NAN;
}

void prism_track_record_add(PrismTrackRecord *t, const PrismValidateReport *rep)
{
    /* the matching rows, for the order statistic (a view: the rows stay rep's) */
    PrismValidateReport view = {.rows = g_ptr_array_new()};
    for (guint i = 0; i < rep->rows->len; i++) {
        PrismValidateRow *r = g_ptr_array_index(rep->rows, i);
        if (r->kind == PRISM_VALIDATE_SKIPPED || r->cluster == NULL)
            continue;
        g_autofree char *fam = prism_device_family(r->cluster);
        if (strcmp(fam, t->family) != 0)
            continue;
        if (t->framework != NULL &&
            (r->framework == NULL || strcmp(r->framework, t->framework) != 0))
            continue;
        if (r->oom) { /* a measured failure: flagged when predicted infeasible */
            t->oom_rows++;
            t->oom_flagged += !r->fits;
            continue;
        }
        g_ptr_array_add(view.rows, r);
        const double te = speed_error(r);
        const double em = r->err[PRISM_VM_MEM];
        const double me = isnan(em)                                       ? NAN
                          : r->pred[PRISM_VM_MEM] > r->meas[PRISM_VM_MEM] ? em
                                                                          : -em;
        if (isnan(te) && isnan(me))
            continue;
        t->rows++;
        if (!isnan(te))
            add_error(&t->speed, te);
        if (!isnan(me))
            add_error(&t->mem, me);
        if (!g_ptr_array_find_with_equal_func(t->sources, r->source, g_str_equal, NULL))
            g_ptr_array_add(t->sources, g_strdup(r->source));
    }
    /* every source together: the last entry (the only one when one source has pairs) */
    g_autoptr(GPtrArray) ord = prism_validate_order(&view, PRISM_VALIDATE_ORDER_TIE);
    if (ord->len > 0)
        prism_validate_order_add(&t->order, g_ptr_array_index(ord, ord->len - 1));
    g_ptr_array_unref(view.rows);
}

void prism_track_record_finish(PrismTrackRecord *t)
{
    PrismTrackStat *s[] = {&t->speed, &t->mem};
    for (size_t i = 0; i < G_N_ELEMENTS(s); i++)
        if (s[i]->n > 0) {
            s[i]->mean_signed /= s[i]->n;
            s[i]->mean_abs /= s[i]->n;
            const double var = s[i]->sd / s[i]->n - s[i]->mean_signed * s[i]->mean_signed;
            s[i]->sd = var > 0 ? sqrt(var) : 0.0;
        }
}

PrismTrackRecord *prism_track_record_run(PrismComm *comm, const char *cluster_name,
                                         const char *framework, const PrismKnobOverrides *knobs)
{
    g_autofree char *fam = prism_device_family(cluster_name);
    PrismTrackRecord *t = prism_track_record_new(fam, framework);
    /* say which of the user's knobs the runs were priced with: a knob a run's stack did
     * not use (hsdp on runs without HSDP) moves its record */
    GString *laid = g_string_new(NULL);
    for (int k = 0; knobs != NULL && k < PRISM_KNOB_COUNT; k++)
        if (knobs->set[k])
            g_string_append_printf(laid, "%s%s=%g", laid->len ? ", " : "",
                                   prism_knob_info((PrismKnobId)k)->name, knobs->knobs.v[k]);
    t->knobs = laid->len > 0 ? g_string_free(laid, FALSE) : (g_string_free(laid, TRUE), NULL);
    /* only the rows that can match are evaluated */
    const PrismValidateOptions opt = {.user = knobs,
                                      .framework = NULL,
                                      .family = fam,
                                      .only_framework = framework,
                                      .no_interval = TRUE};
    for (size_t f = 0; f < G_N_ELEMENTS(track_files); f++) {
        char *path = prism_validation_data_file(track_files[f]);
        if (path == NULL)
            continue;
        g_ptr_array_add(t->data, path);
        /* the same files on every rank: an error is the same everywhere */
        GError *error = NULL;
        g_autoptr(PrismValidateReport) rep = prism_validate_run(comm, path, &opt, &error);
        if (rep == NULL) {
            g_free(t->unavailable);
            t->unavailable = g_strdup(error->message);
            g_error_free(error);
            continue;
        }
        prism_track_record_add(t, rep);
    }
    if (t->data->len == 0 && t->unavailable == NULL)
        t->unavailable = g_strdup("the validation data (measured.csv, measured_modern.csv, "
                                  "measured_playbook.csv, measured_playbook_failed.csv) was not "
                                  "found; set PRISM_VALIDATION_DIR");
    prism_track_record_finish(t);
    return t;
}
