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

#include "track-cache.h"

#include <math.h>
#include <string.h>

#include <prism/core.h>
#include <prism/ranges.h>

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
    g_free(t->leave_out);
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
        if (t->leave_out != NULL && g_strcmp0(r->source, t->leave_out) == 0)
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
    prism_validate_pair_errors(&view, &t->pairs);
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
    if (t->pairs.n > 0)
        t->pairs.rms = sqrt(t->pairs.rms / t->pairs.n);
}

double prism_track_widening(const PrismTrackStat *st)
{
    return st->n > 0 ? MIN(st->mean_abs / 100.0, 0.9) : 0.0;
}

double prism_track_pair_tolerance(const PrismTrackPairs *p)
{
    /* a difference below the measurement tie is one no published run can confirm */
    return MAX(p->n > 0 ? expm1(p->rms / 100.0) : 0.0, PRISM_VALIDATE_ORDER_TIE);
}

/* The statistic of @p r in @p rep (its kind and source), or NULL. */
static PrismValidateStat *row_stat(const PrismValidateReport *rep, const PrismValidateRow *r)
{
    for (guint i = 0; i < rep->stats->len; i++) {
        PrismValidateStat *st = g_ptr_array_index(rep->stats, i);
        if (st->kind == r->kind && g_strcmp0(st->source, r->source) == 0)
            return st;
    }
    return NULL;
}

void prism_track_holdout(PrismValidateReport *const *reps, size_t n)
{
    /* one record per (family, framework, left-out source): "family\x1fframework\x1fsource" */
    g_autoptr(GHashTable) records = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify)prism_track_record_free);
    for (size_t f = 0; f < n; f++) {
        for (guint i = 0; i < reps[f]->rows->len; i++) {
            PrismValidateRow *r = g_ptr_array_index(reps[f]->rows, i);
            r->held_lo = r->held_hi = r->held_widen = r->held_tol = NAN;
            const double m = r->meas[PRISM_VM_STEP];
            PrismValidateStat *st = row_stat(reps[f], r);
            /* the rows with a step interval; of those, the ones with a measured step are the
             * rows of the ranges-only coverage (validate.c) */
            if (isnan(r->step_lo) || !(r->pred[PRISM_VM_STEP] > 0) || r->cluster == NULL ||
                st == NULL)
                continue;
            g_autofree char *fam = prism_device_family(r->cluster);
            g_autofree char *key =
                g_strdup_printf("%s\x1f%s\x1f%s", fam, r->framework ? r->framework : "",
                                r->source ? r->source : "");
            PrismTrackRecord *t = g_hash_table_lookup(records, key);
            if (t == NULL) {
                t = prism_track_record_new(fam, r->framework);
                t->leave_out = g_strdup(r->source);
                for (size_t g = 0; g < n; g++)
                    prism_track_record_add(t, reps[g]);
                prism_track_record_finish(t);
                g_hash_table_insert(records, g_steal_pointer(&key), t);
            }
            /* as prism_corners_form widens plan's intervals */
            const double w = prism_track_widening(&t->speed);
            r->held_widen = w;
            r->held_tol = prism_track_pair_tolerance(&t->pairs);
            prism_interval_widen(r->step_lo, r->step_hi, w, &r->held_lo, &r->held_hi);
            if (isnan(m))
                continue;
            st->ho_n++;
            st->ho_inside += r->held_lo <= m && m <= r->held_hi ? 1 : 0;
            st->ho_bare += t->speed.n == 0 ? 1 : 0;
            st->ho_width += 100.0 * (r->held_hi - r->held_lo) / r->pred[PRISM_VM_STEP];
        }
    }
}

/* The record as bytes (track-cache.h has the layout) and back. */
static GVariant *strings_value(const GPtrArray *a)
{
    return g_variant_new_strv((const char *const *)a->pdata, a->len);
}

static GBytes *record_to_bytes(const PrismTrackRecord *t)
{
    const PrismTrackStat *sp = &t->speed, *me = &t->mem;
    const PrismValidateOrder *o = &t->order;
    g_autoptr(GVariant) v = g_variant_ref_sink(
        g_variant_new("(sms@as@asmsi(idddd)(idddd)(iiidii)(idd)msii)", t->family, t->framework,
                      strings_value(t->data), strings_value(t->sources), t->unavailable, t->rows,
                      sp->n, sp->mean_signed, sp->mean_abs, sp->worst, sp->sd, me->n,
                      me->mean_signed, me->mean_abs, me->worst, me->sd, o->groups, o->pairs,
                      o->ties, o->same, o->fastest_groups, o->fastest_agree, t->pairs.n,
                      t->pairs.rms, t->pairs.worst, t->knobs, t->oom_rows, t->oom_flagged));
    return g_variant_get_data_as_bytes(v);
}

static void strings_into(GVariant *as, GPtrArray *to)
{
    gsize n = 0;
    g_autofree const char **s = g_variant_get_strv(as, &n);
    for (gsize i = 0; i < n; i++)
        g_ptr_array_add(to, g_strdup(s[i]));
}

static gboolean record_from_bytes(GBytes *bytes, PrismTrackRecord *t)
{
    /* untrusted: a file of another layout or cut short is not in normal form */
    g_autoptr(GVariant) v = g_variant_ref_sink(
        g_variant_new_from_bytes(G_VARIANT_TYPE(PRISM_TRACK_CACHE_TYPE), bytes, FALSE));
    if (!g_variant_is_normal_form(v))
        return FALSE;
    const char *family = NULL, *framework = NULL, *unavailable = NULL, *knobs = NULL;
    g_autoptr(GVariant) data = NULL, sources = NULL;
    PrismTrackStat sp, me;
    PrismValidateOrder o = {0};
    int rows = 0, oom_rows = 0, oom_flagged = 0;
    PrismTrackPairs pr = {0};
    g_variant_get(v, "(&sm&s@as@asm&si(idddd)(idddd)(iiidii)(idd)m&sii)", &family, &framework,
                  &data, &sources, &unavailable, &rows, &sp.n, &sp.mean_signed, &sp.mean_abs,
                  &sp.worst, &sp.sd, &me.n, &me.mean_signed, &me.mean_abs, &me.worst, &me.sd,
                  &o.groups, &o.pairs, &o.ties, &o.same, &o.fastest_groups, &o.fastest_agree, &pr.n,
                  &pr.rms, &pr.worst, &knobs, &oom_rows, &oom_flagged);
    if (g_strcmp0(family, t->family) != 0 || g_strcmp0(framework, t->framework) != 0)
        return FALSE;
    strings_into(data, t->data);
    strings_into(sources, t->sources);
    g_free(t->unavailable);
    t->unavailable = g_strdup(unavailable);
    g_free(t->knobs);
    t->knobs = g_strdup(knobs);
    t->rows = rows;
    t->speed = sp;
    t->mem = me;
    t->order = o;
    t->pairs = pr;
    t->oom_rows = oom_rows;
    t->oom_flagged = oom_flagged;
    return TRUE;
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
    /* the shipped CSVs found, in order */
    g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
    for (size_t f = 0; f < G_N_ELEMENTS(track_files); f++) {
        char *path = prism_validation_data_file(track_files[f]);
        if (path != NULL)
            g_ptr_array_add(found, path);
    }
    /* kept from an earlier run (track_cache.c): rank 0 reads, every rank takes the same
     * bytes, so all of them price the runs or none */
    g_autofree char *cache =
        comm->rank == 0 ? prism_track_cache_path_internal(fam, framework, knobs,
                                                          (char *const *)found->pdata, found->len)
                        : NULL;
    gchar *blob = NULL;
    gsize blob_n = 0;
    if (cache != NULL && !g_file_get_contents(cache, &blob, &blob_n, NULL))
        blob_n = 0;
    void *buf = blob;
    size_t n = blob_n;
    g_autoptr(GError) bcast_error = NULL;
    const gboolean shared = prism_comm_bcast_blob(comm, &buf, &n, 0, &bcast_error);
    if (shared && n > 0) {
        g_autoptr(GBytes) bytes = g_bytes_new_take(buf, n);
        if (record_from_bytes(bytes, t))
            return t;
    } else {
        g_free(buf);
    }
    /* only the rows that can match are evaluated */
    const PrismValidateOptions opt = {.user = knobs,
                                      .framework = NULL,
                                      .family = fam,
                                      .only_framework = framework,
                                      .no_interval = TRUE};
    for (guint f = 0; f < found->len; f++) {
        const char *path = g_ptr_array_index(found, f);
        g_ptr_array_add(t->data, g_strdup(path));
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
    if (cache != NULL) { /* best effort: a folder that cannot be written keeps no record */
        g_autoptr(GBytes) bytes = record_to_bytes(t);
        prism_track_cache_write_internal(cache, bytes);
    }
    return t;
}
