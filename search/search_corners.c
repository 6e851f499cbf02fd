// SPDX-License-Identifier: MIT
/*
 * search_corners.c - the interval columns of a walk with a row sink
 * (PrismSearchOptions.intervals): every batch evaluated again at the optimistic and the
 * pessimistic corner of the published ranges (ranges.h), with the same kernels in lean
 * mode (the step time and the allocated peak, bit for bit those of a full run), and the
 * interval formed by prism_corners_form without widening (step_lo and step_hi the least
 * and largest of the point and both corners, mem_hi the largest device figure), and the
 * memory class (prism_mem_class). The kernels are
 * bit-identical on every ISA and the columns depend on the row alone, so they are the
 * same for every ISA and rank count. Nothing here is collective.
 */
#include "search-internal.h"

#include <prism/core.h>
#include <prism/ranges.h>

struct PrismSearchCorners {
    size_t batch;
    PrismCorners corners; /* the job's point model (borrowed) and its corners; no widening */
    PrismEvaluator *ev[PRISM_CORNER_COUNT];
    PrismCostSegment *seg[PRISM_CORNER_COUNT];
    PrismCostOut out[PRISM_CORNER_COUNT];
    double usable;
    double *iv[PRISM_IV_COUNT];
};

PrismSearchCorners *prism_search_corners_new(size_t batch)
{
    PrismSearchCorners *c = g_new0(PrismSearchCorners, 1);
    c->batch = batch;
    for (int k = 0; k < PRISM_CORNER_COUNT; k++)
        for (int col = 0; col < PRISM_COL_COUNT; col++)
            c->out[k].col[col] = prism_aligned_new(batch, sizeof(double));
    for (int i = 0; i < PRISM_IV_COUNT; i++)
        c->iv[i] = g_new0(double, batch);
    return c;
}

static void drop_job(PrismSearchCorners *c)
{
    for (int k = 0; k < PRISM_CORNER_COUNT; k++) {
        g_clear_pointer(&c->seg[k], prism_cost_segment_free);
        g_clear_pointer(&c->ev[k], prism_evaluator_free);
        g_clear_pointer(&c->corners.cm[k], prism_cost_model_free);
    }
    c->corners.point = NULL;
}

void prism_search_corners_free(PrismSearchCorners *c)
{
    if (c == NULL)
        return;
    drop_job(c);
    for (int k = 0; k < PRISM_CORNER_COUNT; k++)
        for (int col = 0; col < PRISM_COL_COUNT; col++)
            prism_aligned_free(c->out[k].col[col]);
    for (int i = 0; i < PRISM_IV_COUNT; i++)
        g_free(c->iv[i]);
    g_free(c);
}

gboolean prism_search_corners_job(PrismSearchCorners *c, const PrismCostModel *cm,
                                  const PrismKernelTable *kt, GError **error)
{
    drop_job(c);
    for (int k = 0; k < PRISM_CORNER_COUNT; k++) {
        c->corners.cm[k] = prism_cost_model_corner(cm, (PrismCorner)k, TRUE, TRUE, error);
        if (c->corners.cm[k] == NULL) {
            drop_job(c);
            return FALSE;
        }
        c->ev[k] = prism_evaluator_new(c->corners.cm[k], kt, c->batch);
        prism_evaluator_set_lean(c->ev[k], TRUE);
    }
    c->corners.point = cm;
    c->usable = prism_cost_model_usable(cm);
    return TRUE;
}

gboolean prism_search_corners_segment(PrismSearchCorners *c, const PrismSegmentKey *key,
                                      GError **error)
{
    for (int k = 0; k < PRISM_CORNER_COUNT; k++) {
        g_clear_pointer(&c->seg[k], prism_cost_segment_free);
        if ((c->seg[k] = prism_cost_segment_new(c->corners.cm[k], key, FALSE, error)) == NULL)
            return FALSE;
    }
    return TRUE;
}

const double *const *prism_search_corners_run(PrismSearchCorners *c, const PrismSegmentKey *key,
                                              const PrismLanes *lanes, const PrismCostOut *point)
{
    for (int k = 0; k < PRISM_CORNER_COUNT; k++)
        prism_evaluator_run(c->ev[k], c->seg[k], lanes, &c->out[k]);
    /* the dims the device figure reads (its NCCL groups: tp, cp, dp, ep and pp) */
    PrismStrategy s = {.pp = key->pp};
    for (size_t i = 0; i < lanes->n; i++) {
        s.tp = (uint32_t)lanes->tp[i];
        s.cp = (uint32_t)lanes->cp[i];
        s.dp = (uint32_t)lanes->dp[i];
        s.ep = (uint32_t)lanes->ep[i];
        double cols[PRISM_COL_COUNT] = {0}, step[PRISM_CORNER_COUNT], peak[PRISM_CORNER_COUNT];
        cols[PRISM_COL_TIME_STEP] = point->col[PRISM_COL_TIME_STEP][i];
        cols[PRISM_COL_MEM_PEAK] = point->col[PRISM_COL_MEM_PEAK][i];
        /* the persistent bytes (prism_cost_persistent; the point runs with a row sink, so
         * it writes them) */
        cols[PRISM_COL_MEM_PARAMS] = point->col[PRISM_COL_MEM_PARAMS][i];
        cols[PRISM_COL_MEM_GRADS] = point->col[PRISM_COL_MEM_GRADS][i];
        cols[PRISM_COL_MEM_OPTIMIZER] = point->col[PRISM_COL_MEM_OPTIMIZER][i];
        for (int k = 0; k < PRISM_CORNER_COUNT; k++) {
            step[k] = c->out[k].col[PRISM_COL_TIME_STEP][i];
            peak[k] = c->out[k].col[PRISM_COL_MEM_PEAK][i];
        }
        PrismInterval iv;
        prism_corners_form(&c->corners, &s, cols, step, peak, &iv);
        c->iv[PRISM_IV_STEP_LO][i] = iv.step_lo;
        c->iv[PRISM_IV_STEP_HI][i] = iv.step_hi;
        c->iv[PRISM_IV_MEM_HI][i] = iv.mem_hi;
        c->iv[PRISM_IV_MEM_RISK][i] = (double)prism_mem_class(&iv, c->usable);
    }
    return (const double *const *)c->iv;
}
