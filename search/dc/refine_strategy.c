// SPDX-License-Identifier: MIT
/*
 * refine_strategy.c - refine.h on a real strategy: the surrogate from the cost model's
 * per-layer terms and the exact evaluation of the uniform and refined layouts. The text
 * and JSON reports of `prism plan --refine K` are rendered by the CLI (src/app/app_render.c).
 *
 * Re-entrant; nothing here is collective.
 */
#include <prism/refine.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>
#include <prism/dc.h>

static int64_t to_ps(double s)
{
    return (int64_t)llround(s * 1e12);
}

static int64_t to_b(double b)
{
    return (int64_t)llround(b);
}

void prism_refine_result_free(PrismRefineResult *r)
{
    if (r == NULL)
        return;
    prism_layout_free(r->uniform);
    prism_layout_free(r->refined);
    g_free(r);
}

/* The surrogate problem of strategy @p s. Fills layers (caller frees) and mu. */
static gboolean build_problem(const PrismCostModel *cm, const PrismStrategy *s,
                              const double uniform_cols[PRISM_COL_COUNT], PrismRefineProblem *p,
                              PrismRefineLayer **layers_out, double **mu_out, GError **error)
{
    const PrismModel *model = prism_cost_model_model(cm);
    g_autoptr(GArray) layers = g_array_new(FALSE, TRUE, sizeof(PrismRefineLayer));
    memset(p, 0, sizeof *p);
    for (uint32_t i = 0; i < model->n_layers; i++) {
        PrismLayerTerms t;
        if (!prism_cost_layer_terms(cm, s, i, &t, error))
            return FALSE;
        const int64_t time0 = to_ps(t.fwd_s + t.bwd_s);
        const int64_t stat = to_b(t.params_bytes + t.grads_bytes + t.optimizer_bytes);
        switch (model->layers[i].kind) {
        case PRISM_LAYER_BLOCK:
        case PRISM_LAYER_MTP: {
            PrismRefineLayer l = {.static_bytes = stat, .work_bytes = to_b(t.work_bytes)};
            for (int r = 0; r < 3; r++) {
                l.time_ps[r] = time0 + to_ps(t.recompute_s[r]);
                l.act_bytes[r] = to_b(t.act_bytes[r]);
            }
            g_array_append_val(layers, l);
            break;
        }
        case PRISM_LAYER_EMBEDDING:
            p->first_time_ps += time0;
            p->first_static += stat;
            p->first_act += to_b(t.act_bytes[0]);
            break;
        default: /* final norm (zeros) and head */
            p->last_time_ps += time0;
            p->last_static += stat;
            p->last_act += to_b(t.act_bytes[0]);
            break;
        }
    }
    p->n_layers = layers->len;
    p->pp = s->pp;
    p->vpp = s->vpp;
    p->m = s->m;
    p->modes = 7u;
    double *mu = g_new(double, (size_t)s->pp * s->vpp);
    for (uint32_t st = 0; st < s->pp; st++)
        for (uint32_t c = 0; c < s->vpp; c++)
            mu[st * s->vpp + c] =
                prism_refine_inflight((PrismSchedule)s->schedule, s->pp, s->vpp, s->m, st, c);
    p->mu = mu;
    /* the allocated bytes whose device-level figure fits (prism_cost_allocated_limit) */
    p->budget_bytes =
        to_b(prism_cost_allocated_limit(cm, s) - uniform_cols[PRISM_COL_MEM_COMM_BUFFERS]);
    *layers_out = (PrismRefineLayer *)(void *)g_array_free(g_steal_pointer(&layers), FALSE);
    p->layers = *layers_out;
    *mu_out = mu;
    return TRUE;
}

PrismRefineResult *prism_refine_strategy(const PrismCostModel *cm, const PrismStrategy *s,
                                         GError **error)
{
    const double t0 = prism_now();
    PrismSegmentKey key = prism_segment_key_of(s);
    g_autoptr(PrismRefineResult) r = g_new0(PrismRefineResult, 1);
    r->strategy = *s;
    r->uniform = prism_layout_default(cm, &key, error);
    if (r->uniform == NULL || !prism_cost_eval_layout(cm, s, r->uniform, r->uniform_cols, error))
        return NULL;
    PrismRefineProblem p;
    g_autofree PrismRefineLayer *layers = NULL;
    g_autofree double *mu = NULL;
    if (!build_problem(cm, s, r->uniform_cols, &p, &layers, &mu, error))
        return NULL;
    p.start_chunks = r->uniform->chunk_layers;
    p.start_rc = r->uniform->layer_rc;
    /* The surrogate places chunk c of stage s at c*pp + s and knows the in-flight counts
     * of 1F1B, GPipe, ZB-H1 and interleaved only: the V schedules, DualPipe and seq1F1B
     * keep their uniform layout (refined == uniform, not improved). */
    const gboolean modelled = prism_schedule_info(s->schedule)->refined;
    g_autoptr(PrismRefineSolution) sol =
        modelled ? prism_refine_solve(&p, NULL) : NULL; /* NULL: keep uniform */
    r->refined = prism_layout_copy(r->uniform);
    memcpy(r->refined_cols, r->uniform_cols, sizeof r->refined_cols);
    r->surrogate_ps = PRISM_DC_INF;
    if (sol != NULL) {
        r->surrogate_ps = sol->step_ps;
        g_autoptr(PrismLayout) cand = prism_layout_new(s->pp, s->vpp, sol->n_layers);
        memcpy(cand->chunk_layers, sol->chunk_layers, (size_t)s->pp * s->vpp * sizeof(uint32_t));
        memcpy(cand->layer_rc, sol->layer_rc, sol->n_layers);
        double cols[PRISM_COL_COUNT];
        if (!prism_cost_eval_layout(cm, s, cand, cols, error))
            return NULL;
        if (prism_log_threshold() >= PRISM_LOG_DEBUG)
            prism_log(PRISM_LOG_DEBUG, -1,
                      "refine: surrogate step uniform %.4f s, refined %.4f s; exact uniform %.4f s "
                      "(fits %d), refined %.4f s (fits %d, peak %.2f GiB)",
                      (double)prism_refine_evaluate(&p, r->uniform->chunk_layers,
                                                    r->uniform->layer_rc, NULL, NULL) *
                          1e-12,
                      (double)sol->step_ps * 1e-12, r->uniform_cols[PRISM_COL_TIME_STEP],
                      r->uniform_cols[PRISM_COL_FEASIBLE] > 0.5, cols[PRISM_COL_TIME_STEP],
                      cols[PRISM_COL_FEASIBLE] > 0.5, cols[PRISM_COL_MEM_PEAK] / 1073741824.0);
        gboolean was_ok = r->uniform_cols[PRISM_COL_FEASIBLE] > 0.5;
        gboolean now_ok = cols[PRISM_COL_FEASIBLE] > 0.5;
        gboolean better =
            now_ok && (!was_ok || cols[PRISM_COL_TIME_STEP] < r->uniform_cols[PRISM_COL_TIME_STEP]);
        if (better) {
            prism_layout_free(r->refined);
            r->refined = g_steal_pointer(&cand);
            memcpy(r->refined_cols, cols, sizeof cols);
            r->improved = TRUE;
            r->gain = 1.0 - cols[PRISM_COL_TIME_STEP] / r->uniform_cols[PRISM_COL_TIME_STEP];
        }
    }
    r->seconds = prism_now() - t0;
    return g_steal_pointer(&r);
}

GPtrArray *prism_refine_run(const PrismCostModel *cm, const PrismStrategy *strategies, size_t n,
                            GError **error)
{
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)prism_refine_result_free);
    for (size_t i = 0; i < n; i++) {
        PrismRefineResult *r = prism_refine_strategy(cm, &strategies[i], error);
        if (r == NULL) {
            g_ptr_array_unref(out);
            return NULL;
        }
        g_ptr_array_add(out, r);
    }
    return out;
}
